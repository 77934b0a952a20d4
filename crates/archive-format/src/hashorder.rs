//! libpcp keeps an archive's descriptors and instance domains in its own hash tables
//! (`__pmHashCtl`), and pmdumplog prints them in the tables' iteration order. This
//! module reproduces that order from the insertion order of the keys.
//!
//! The table starts empty; each insertion counts a node and, when
//! `nodes / 4 > size`, grows the table (size doubled, plus one if odd, plus two
//! if not a multiple of 3, plus two if not a multiple of 5), rehashing the old chains
//! by walking the old buckets from last to first, each chain head to tail, pushing every
//! node onto the head of its new bucket. The new node goes onto the head of bucket
//! `key % size`. Iteration is bucket 0 upwards, each chain head to tail.

/// A model of libpcp's `__pmHashCtl`: chained buckets, growth and rehashing as
/// described above, duplicate keys allowed. [`find`](ChainTable::find) returns what
/// `__pmHashSearch` would: the first node with the key, walking its chain from the
/// head.
#[derive(Debug, Clone)]
pub struct ChainTable<T> {
    /// Each chain with its head at the end (pushing is prepending).
    buckets: Vec<Vec<(u32, T)>>,
    nodes: usize,
}

impl<T> Default for ChainTable<T> {
    fn default() -> Self {
        ChainTable {
            buckets: Vec::new(),
            nodes: 0,
        }
    }
}

impl<T> ChainTable<T> {
    /// `__pmHashAdd`.
    pub fn insert(&mut self, key: u32, value: T) {
        self.nodes += 1;
        if self.buckets.is_empty() {
            self.buckets.push(Vec::new());
        } else if self.nodes / 4 > self.buckets.len() {
            let mut ns = self.buckets.len() * 2;
            if !ns.is_multiple_of(2) {
                ns += 1;
            }
            if !ns.is_multiple_of(3) {
                ns += 2;
            }
            if !ns.is_multiple_of(5) {
                ns += 2;
            }
            let mut nb: Vec<Vec<(u32, T)>> = (0..ns).map(|_| Vec::new()).collect();
            for chain in std::mem::take(&mut self.buckets).into_iter().rev() {
                // head to tail = reverse of the storage order
                for (k, v) in chain.into_iter().rev() {
                    nb[k as usize % ns].push((k, v));
                }
            }
            self.buckets = nb;
        }
        let n = self.buckets.len();
        self.buckets[key as usize % n].push((key, value));
    }

    /// `__pmHashSearch`: the first node with `key` from the head of its chain.
    pub fn find(&self, key: u32) -> Option<&T> {
        self.find_index(key).map(|(b, i)| &self.buckets[b][i].1)
    }

    /// Like [`find`](Self::find), mutable.
    pub fn find_mut(&mut self, key: u32) -> Option<&mut T> {
        let (b, i) = self.find_index(key)?;
        Some(&mut self.buckets[b][i].1)
    }

    fn find_index(&self, key: u32) -> Option<(usize, usize)> {
        if self.buckets.is_empty() {
            return None;
        }
        let b = key as usize % self.buckets.len();
        let i = self.buckets[b].iter().rposition(|(k, _)| *k == key)?;
        Some((b, i))
    }

    /// Keys in iteration order (`__pmHashWalk`): bucket 0 upwards, each chain head
    /// to tail.
    pub fn keys(&self) -> Vec<u32> {
        self.buckets
            .iter()
            .flat_map(|c| c.iter().rev().map(|(k, _)| *k))
            .collect()
    }
}

/// Keys (in first-insertion order) in the order libpcp's hash table iterates them.
pub fn hash_order(keys: &[u32]) -> Vec<u32> {
    let mut t = ChainTable::default();
    for &k in keys {
        t.insert(k, ());
    }
    t.keys()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_tables_iterate_newest_first() {
        // up to 7 nodes the table has one bucket: newest at the head
        assert_eq!(hash_order(&[5, 9, 2]), vec![2, 9, 5]);
    }

    #[test]
    fn grows_and_rehashes() {
        let keys: Vec<u32> = (0..20).collect();
        let out = hash_order(&keys);
        let mut sorted = out.clone();
        sorted.sort();
        assert_eq!(sorted, keys);
        assert_ne!(out, keys);
    }

    #[test]
    fn search_finds_the_newest_until_a_rehash_reverses_chains() {
        let mut t = ChainTable::default();
        t.insert(7, "a");
        t.insert(7, "b");
        assert_eq!(t.find(7), Some(&"b"));
        for k in 0..6 {
            t.insert(100 + k, "x");
        }
        // the eighth node grew the table: same-key chains were reversed
        assert_eq!(t.find(7), Some(&"a"));
        assert_eq!(t.find(9), None);
    }
}
