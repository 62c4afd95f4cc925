//! Hash tables that grow without stalling a live event (docs/behaviour.md §10). A full
//! `HashMap` doubles by rehashing every entry at once, in the one event that
//! fills it: at 115k messages that event rehashed the store's, the layout's
//! and the search index's per-message tables, ~0.2 s. A [`ShardedMap`]
//! spreads its entries over [`SHARDS`] maps by hash, so the event that fills
//! one shard rehashes that shard only, 1/64 of the entries; each table picks
//! shards with its own seed, so tables of the same ids do not fill together.
//! Only the tables that grow with every message or subagent are sharded: the
//! price is about 6% more instructions per event and 3 KB gzip of wasm.

use foldhash::fast::RandomState;
use hashbrown::hash_table::Entry;
use hashbrown::HashTable;
use std::borrow::Borrow;
use std::hash::{BuildHasher, Hash};

/// Maps per table.
const SHARDS: usize = 64;

/// A hash map in [`SHARDS`] parts. See the module docs.
#[derive(Clone, Debug)]
pub struct ShardedMap<K, V> {
    hasher: RandomState,
    shards: Box<[HashTable<(K, V)>]>,
}

impl<K, V> Default for ShardedMap<K, V> {
    fn default() -> Self {
        ShardedMap {
            hasher: RandomState::default(),
            shards: (0..SHARDS).map(|_| HashTable::new()).collect(),
        }
    }
}

impl<K: Hash + Eq, V> ShardedMap<K, V> {
    /// The hash of `key` and its shard. Bits 32 and up pick the shard: a
    /// table reads its buckets from the low bits and its tags from the top 7
    /// bits of the low 32 (wasm) or of all 64, so one hash serves both.
    fn locate<Q: Hash + ?Sized>(&self, key: &Q) -> (u64, usize) {
        let hash = self.hasher.hash_one(key);
        (hash, (hash >> 32) as usize % SHARDS)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.shards.iter().map(HashTable::len).sum()
    }

    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let (hash, i) = self.locate(key);
        let (_, value) = self.shards[i].find(hash, |(k, _)| k.borrow() == key)?;
        Some(value)
    }

    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let (hash, i) = self.locate(key);
        let (_, value) = self.shards[i].find_mut(hash, |(k, _)| k.borrow() == key)?;
        Some(value)
    }

    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.get(key).is_some()
    }

    fn entry(&mut self, key: &K) -> Entry<'_, (K, V)> {
        let (hash, i) = self.locate(key);
        let hasher = &self.hasher;
        self.shards[i].entry(hash, |(k, _)| k == key, |(k, _)| hasher.hash_one(k))
    }

    /// Inserts `value` at `key`; returns the value it replaced.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.entry(&key) {
            Entry::Occupied(mut e) => Some(std::mem::replace(&mut e.get_mut().1, value)),
            Entry::Vacant(e) => {
                e.insert((key, value));
                None
            }
        }
    }

    /// The value at `key`, inserted from `default` if there was none.
    pub fn get_or_insert_with(&mut self, key: K, default: impl FnOnce() -> V) -> &mut V {
        match self.entry(&key) {
            Entry::Occupied(e) => &mut e.into_mut().1,
            Entry::Vacant(e) => &mut e.insert((key, default())).into_mut().1,
        }
    }

    pub fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let (hash, i) = self.locate(key);
        let entry = self.shards[i].find_entry(hash, |(k, _)| k.borrow() == key);
        let ((_, value), _) = entry.ok()?.remove();
        Some(value)
    }

    /// Every entry, in no order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.shards.iter().flatten().map(|(k, v)| (k, v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.iter().map(|(k, _)| k)
    }

    pub fn clear(&mut self) {
        self.shards.iter_mut().for_each(HashTable::clear);
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

    /// Removes every key, yielding them in no order; each shard keeps its
    /// capacity (the set is drained again and again).
    pub fn drain(&mut self) -> impl Iterator<Item = K> + '_ {
        self.0
            .shards
            .iter_mut()
            .flat_map(HashTable::drain)
            .map(|(k, ())| k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_spread_over_the_shards_so_one_shard_rehashes_a_small_part() {
        let mut map = ShardedMap::default();
        for n in 0..10_000 {
            map.insert(format!("msg-{n}"), n);
        }
        assert_eq!(map.len(), 10_000);
        let fullest = map.shards.iter().map(HashTable::len).max().unwrap();
        assert!(fullest < 10_000 / 32, "one shard holds {fullest}");
        assert_eq!(map.get("msg-4321"), Some(&4321));
        assert_eq!(map.remove("msg-4321"), Some(4321));
        assert!(!map.contains_key("msg-4321"));
    }

    #[test]
    fn drain_empties_the_set_and_yields_every_key() {
        let mut set = ShardedSet::default();
        for n in 0..200 {
            set.insert(n);
        }
        let mut drained: Vec<i32> = set.drain().collect();
        drained.sort_unstable();
        assert_eq!(drained, (0..200).collect::<Vec<_>>());
        assert_eq!(set.len(), 0);
        assert!(set.insert(7));
        assert!(!set.insert(7));
    }
}
