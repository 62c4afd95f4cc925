//! What the layout needs to know about one message, and where a message goes:
//! at top level, inside its parent's card, or in an orphan card (docs/behaviour.md §2.1,
//! §2.7, §2.8).

use crate::model::message::{Author, Message, MessageType};
use crate::model::status::depends_on_turn;
use crate::state::store::{OrderKey, Store};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

/// The layout-relevant facts of a message, kept to see what an event changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Facts {
    pub key: OrderKey,
    pub parent: Option<String>,
    pub tool_call_id: Option<String>,
    pub is_tool: bool,
    pub is_payload_subagent: bool,
    pub is_thinking: bool,
    pub is_user: bool,
    pub turn: Option<String>,
    /// Its run state flips with its turn's activity (docs/behaviour.md §3.4).
    pub turn_sensitive: bool,
}

impl Facts {
    pub fn of(key: OrderKey, m: &Message) -> Facts {
        let nonempty = |s: &Option<String>| s.clone().filter(|s| !s.is_empty());
        let is_tool = m.kind.is_tool();
        Facts {
            key,
            parent: nonempty(&m.metadata.parent_tool_call_id),
            tool_call_id: nonempty(&m.metadata.tool_call_id),
            is_tool,
            is_payload_subagent: m.is_subagent_payload(),
            is_thinking: m.kind == MessageType::Thinking,
            is_user: m.author == Author::User,
            turn: m.turn_id.clone(),
            turn_sensitive: is_tool && depends_on_turn(m),
        }
    }

    /// The facts that decide where messages are placed.
    pub fn links_differ(a: Option<&Facts>, b: Option<&Facts>) -> bool {
        let links = |f: Option<&Facts>| {
            f.map(|f| (f.key, f.parent.clone(), f.tool_call_id.clone(), f.is_tool))
        };
        links(a) != links(b)
    }
}

/// Where a message is shown.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Placement {
    /// A top-level row (or a member of a top-level group).
    Top,
    /// A child row inside the card of this message id.
    Card(String),
    /// A child row inside the orphan card of this unloaded parent tool_call_id.
    Orphans(String),
}

/// Where a message's `parent_tool_call_id` points.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Parent<'a> {
    None,
    Unloaded(&'a str),
    Message(&'a str),
}

fn parent_of<'a>(store: &'a Store, id: &str) -> Parent<'a> {
    let Some(p) = store
        .message(id)
        .and_then(|m| m.metadata.parent_tool_call_id.as_deref())
        .filter(|p| !p.is_empty())
    else {
        return Parent::None;
    };
    match store.tool_owner(p) {
        Some(owner) => Parent::Message(owner),
        None => Parent::Unloaded(p),
    }
}

fn placement_by_parent(parent: Parent<'_>) -> Placement {
    match parent {
        Parent::None => Placement::Top,
        Parent::Unloaded(p) => Placement::Orphans(p.to_string()),
        Parent::Message(o) => Placement::Card(o.to_string()),
    }
}

fn order_key(store: &Store, id: &str) -> Option<OrderKey> {
    store.message_key(id)
}

/// The placement of one message (docs/behaviour.md §2.8): under its parent, unless that
/// parent chain loops back to it and it is the earliest member of the loop, in
/// which case the loop is cut there and it stays top-level. Returns the other
/// loop members when it is on a loop (their placements depend on the cut too).
/// Walks at most the length of its parent chain.
pub(super) fn placement(store: &Store, id: &str) -> (Placement, Vec<String>) {
    let own = parent_of(store, id);
    let mut chain: Vec<&str> = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut parent = own.clone();
    let on_loop = loop {
        match parent {
            Parent::Message(o) if o == id => break true,
            Parent::Message(o) if seen.insert(o) => {
                chain.push(o);
                parent = parent_of(store, o);
            }
            _ => break false,
        }
    };
    if !on_loop {
        return (placement_by_parent(own), Vec::new());
    }
    let first = chain
        .iter()
        .copied()
        .chain(std::iter::once(id))
        .min_by_key(|m| order_key(store, m))
        .unwrap_or(id);
    let others = chain.iter().map(|s| s.to_string()).collect();
    if first == id {
        (Placement::Top, others)
    } else {
        (placement_by_parent(own), others)
    }
}

/// Placements of every message at once, in time linear in the store: each
/// parent chain is walked once, and each loop found is cut at its earliest member.
pub(super) fn all_placements(store: &Store, ids: &[&str]) -> HashMap<String, Placement> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        OnPath,
        Done,
    }
    let mut marks: HashMap<&str, Mark> = HashMap::with_capacity(ids.len());
    let mut cut: HashSet<&str> = HashSet::new();
    for &start in ids {
        if marks.contains_key(start) {
            continue;
        }
        let mut path: Vec<&str> = Vec::new();
        let mut cur = start;
        loop {
            marks.insert(cur, Mark::OnPath);
            path.push(cur);
            match parent_of(store, cur) {
                Parent::Message(o) => match marks.get(o) {
                    None => cur = o,
                    Some(Mark::OnPath) => {
                        let from = path.iter().rposition(|m| *m == o).unwrap_or(0);
                        if let Some(first) = path[from..].iter().min_by_key(|m| order_key(store, m))
                        {
                            cut.insert(first);
                        }
                        break;
                    }
                    Some(Mark::Done) => break,
                },
                _ => break,
            }
        }
        for m in path {
            marks.insert(m, Mark::Done);
        }
    }
    ids.iter()
        .map(|&id| {
            let p = if cut.contains(id) {
                Placement::Top
            } else {
                placement_by_parent(parent_of(store, id))
            };
            (id.to_string(), p)
        })
        .collect()
}

/// True when a top-placed message has a loaded parent: its loop was cut.
pub(super) fn is_cut(store: &Store, id: &str, p: &Placement) -> bool {
    *p == Placement::Top && matches!(parent_of(store, id), Parent::Message(_))
}
