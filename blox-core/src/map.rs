//! [`FixedMap`]: the workspace's one hash map, for string-keyed lookups.

use std::borrow::Borrow;
use std::hash::{BuildHasherDefault, DefaultHasher, Hash};

/// The hasher every [`FixedMap`] uses: SipHash-1-3 with fixed (zero) keys, the same on every run
/// and machine, never seeded from the OS.
type FixedHasher = BuildHasherDefault<DefaultHasher>;

/// A hash map for lookups by a key that is not a dense id (model names, GPU type names), built
/// on `hashbrown` with a fixed hasher.
///
/// It deliberately offers no iteration in hash order: [`FixedMap::sorted`] lists entries in key
/// order, so no hash-map iteration order can reach a decision or an output. Tables indexed by a
/// dense id ([`crate::JobId`], [`crate::GpuId`]) use vectors instead. The `hashbrown` type stays
/// inside: the public API is this wrapper's.
#[derive(Clone, Debug)]
pub struct FixedMap<K, V>(hashbrown::HashMap<K, V, FixedHasher>);

impl<K, V> Default for FixedMap<K, V> {
    fn default() -> Self {
        FixedMap(hashbrown::HashMap::with_hasher(FixedHasher::default()))
    }
}

impl<K: Hash + Eq, V: PartialEq> PartialEq for FixedMap<K, V> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl<K: Hash + Eq, V> FixedMap<K, V> {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value under `key`.
    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.0.get(key)
    }

    /// The value under `key`, to change it.
    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.0.get_mut(key)
    }

    /// Whether `key` has a value.
    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.0.contains_key(key)
    }

    /// Set the value under `key`; returns the previous one.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        self.0.insert(key, value)
    }

    /// The value under `key`, inserted as `V::default()` first if absent.
    pub fn get_or_default(&mut self, key: K) -> &mut V
    where
        V: Default,
    {
        self.0.entry(key).or_default()
    }

    /// Every entry, in ascending key order (the only way to iterate).
    pub fn sorted(&self) -> Vec<(&K, &V)>
    where
        K: Ord,
    {
        let mut v: Vec<(&K, &V)> = self.0.iter().collect();
        v.sort_unstable_by(|a, b| a.0.cmp(b.0));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iteration_is_in_key_order_whatever_the_insertion_order() {
        let mut a: FixedMap<String, u32> = FixedMap::new();
        let mut b: FixedMap<String, u32> = FixedMap::new();
        for (i, k) in ["resnet", "bert", "lm", "a3c"].iter().enumerate() {
            a.insert(k.to_string(), i as u32);
        }
        for (i, k) in ["a3c", "lm", "bert", "resnet"].iter().enumerate() {
            b.insert(k.to_string(), 3 - i as u32);
        }
        assert_eq!(a, b);
        let keys: Vec<&str> = a.sorted().iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, vec!["a3c", "bert", "lm", "resnet"]);
        assert_eq!(a.get("bert"), Some(&1));
        *a.get_or_default("new".into()) += 5;
        assert_eq!(a.get("new"), Some(&5));
        assert!(a.contains_key("lm") && !a.contains_key("gpt"));
    }

    #[test]
    fn the_hasher_is_fixed() {
        use std::hash::BuildHasher;
        let h = |s: &str| FixedHasher::default().hash_one(s);
        // SipHash-1-3 with zero keys: the same value on every run, so lookups cost the same and
        // nothing is seeded from the OS.
        assert_eq!(h("resnet50"), h("resnet50"));
        assert_eq!(
            FixedHasher::default().hash_one("v100"),
            BuildHasherDefault::<DefaultHasher>::default().hash_one("v100")
        );
    }
}
