//! Hash tables that grow without stalling a live event (issue 16). A full
//! `HashMap` doubles by rehashing every entry at once, in the one event that
//! fills it: at 115k messages that event rehashed the store's, the layout's
//! and the search index's per-message tables, ~0.2 s. A [`ShardedMap`]
//! spreads its entries over [`SHARDS`] maps by hash, so the event that fills
//! one shard rehashes that shard only, 1/64 of the entries; each table picks
//! shards with its own seed, so tables of the same ids do not fill together.

use foldhash::fast::RandomState;
use foldhash::HashMap;
use std::borrow::Borrow;
use std::collections::hash_map::Entry;
use std::hash::{BuildHasher, Hash};

/// Maps per table.
const SHARDS: usize = 64;

/// A hash map in [`SHARDS`] parts. See the module docs.
#[derive(Clone, Debug)]
pub struct ShardedMap<K, V> {
    /// Picks the shard of a key.
    route: RandomState,
    shards: Box<[HashMap<K, V>]>,
}

impl<K, V> Default for ShardedMap<K, V> {
    fn default() -> Self {
        ShardedMap {
            route: RandomState::default(),
            shards: (0..SHARDS).map(|_| HashMap::default()).collect(),
        }
    }
}

impl<K: Hash + Eq, V> ShardedMap<K, V> {
    fn shard_of<Q: Hash + ?Sized>(&self, key: &Q) -> usize {
        self.route.hash_one(key) as usize % SHARDS
    }

    fn shard<Q: Hash + ?Sized>(&self, key: &Q) -> &HashMap<K, V> {
        &self.shards[self.shard_of(key)]
    }

    fn shard_mut<Q: Hash + ?Sized>(&mut self, key: &Q) -> &mut HashMap<K, V> {
        let i = self.shard_of(key);
        &mut self.shards[i]
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.shards.iter().map(HashMap::len).sum()
    }

    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.shard(key).get(key)
    }

    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.shard_mut(key).get_mut(key)
    }

    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.shard(key).contains_key(key)
    }

    /// Inserts `value` at `key`; returns the value it replaced.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        self.shard_mut(&key).insert(key, value)
    }

    pub fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.shard_mut(key).remove(key)
    }

    pub fn entry(&mut self, key: K) -> Entry<'_, K, V> {
        self.shard_mut(&key).entry(key)
    }

    /// Every entry, in no order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.shards.iter().flatten()
    }

    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.iter().map(|(_, v)| v)
    }

    pub fn clear(&mut self) {
        self.shards.iter_mut().for_each(HashMap::clear);
    }
}

/// A hash set in [`SHARDS`] parts, as [`ShardedMap`].
#[derive(Clone, Debug)]
pub struct ShardedSet<K>(ShardedMap<K, ()>);

impl<K> Default for ShardedSet<K> {
    fn default() -> Self {
        ShardedSet(ShardedMap::default())
    }
}

impl<K: Hash + Eq> ShardedSet<K> {
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn contains<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.0.contains_key(key)
    }

    /// Adds `key`; true when it was not there.
    pub fn insert(&mut self, key: K) -> bool {
        self.0.insert(key, ()).is_none()
    }

    /// Removes `key`; true when it was there.
    pub fn remove<Q>(&mut self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.0.remove(key).is_some()
    }

    /// Every key, in no order.
    pub fn iter(&self) -> impl Iterator<Item = &K> {
        self.0.keys()
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Removes every key, yielding them in no order.
    pub fn drain(&mut self) -> impl Iterator<Item = K> {
        let ShardedSet(map) = std::mem::take(self);
        map.shards
            .into_vec()
            .into_iter()
            .flat_map(HashMap::into_keys)
    }
}
