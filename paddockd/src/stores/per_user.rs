//! State split by user, each user's part behind its own `Arc`.
//!
//! Per-user stores (read-state, manual unread) are read once per chat list, for one user,
//! across maybe 10,000 chats. Holding each user's part as an `Arc` makes that read a
//! refcount increment, and a change copies only the part of the user it touches. On disk
//! it is a plain JSON object `{ "<user>": <part> }`.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Debug, Clone)]
pub(crate) struct PerUser<V>(BTreeMap<String, Arc<V>>);

impl<V> Default for PerUser<V> {
    fn default() -> Self {
        Self(BTreeMap::new())
    }
}

impl<V: Clone + Default> PerUser<V> {
    pub(crate) fn get(&self, user: &str) -> Option<&Arc<V>> {
        self.0.get(user)
    }

    /// `user`'s part, cheaply shared, or an empty one.
    pub(crate) fn snapshot(&self, user: &str) -> Arc<V> {
        self.0.get(user).cloned().unwrap_or_default()
    }

    /// `user`'s part to change, created empty if absent; copied first if shared.
    pub(crate) fn edit(&mut self, user: &str) -> &mut V {
        Arc::make_mut(self.0.entry(user.to_owned()).or_default())
    }

    /// Drops `user`'s part if `is_empty` says so, keeping the file free of empty entries.
    pub(crate) fn prune(&mut self, user: &str, is_empty: impl Fn(&V) -> bool) {
        if self.0.get(user).is_some_and(|v| is_empty(v)) {
            self.0.remove(user);
        }
    }

    /// The users whose part matches `pred`.
    pub(crate) fn users_where(&self, pred: impl Fn(&V) -> bool) -> Vec<String> {
        self.0
            .iter()
            .filter(|(_, v)| pred(v))
            .map(|(u, _)| u.clone())
            .collect()
    }
}

impl<V: Serialize> Serialize for PerUser<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(user, part)| (user, &**part)))
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for PerUser<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let plain = BTreeMap::<String, V>::deserialize(deserializer)?;
        Ok(Self(
            plain
                .into_iter()
                .map(|(user, part)| (user, Arc::new(part)))
                .collect(),
        ))
    }
}
