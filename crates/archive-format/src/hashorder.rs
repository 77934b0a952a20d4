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

/// Keys (in first-insertion order) in the order libpcp's hash table iterates them.
pub fn hash_order(keys: &[u32]) -> Vec<u32> {
    let mut size: usize = 0;
    let mut buckets: Vec<Vec<u32>> = Vec::new(); // each Vec: head at the END (push = head)
    let mut nodes = 0usize;
    for &k in keys {
        nodes += 1;
        if size == 0 {
            size = 1;
            buckets = vec![Vec::new()];
        } else if nodes / 4 > size {
            let mut ns = size * 2;
            if !ns.is_multiple_of(2) {
                ns += 1;
            }
            if !ns.is_multiple_of(3) {
                ns += 2;
            }
            if !ns.is_multiple_of(5) {
                ns += 2;
            }
            let mut nb: Vec<Vec<u32>> = vec![Vec::new(); ns];
            for chain in buckets.iter().rev() {
                // head to tail = reverse of our storage order
                for &key in chain.iter().rev() {
                    nb[key as usize % ns].push(key);
                }
            }
            buckets = nb;
            size = ns;
        }
        buckets[k as usize % size].push(k);
    }
    buckets
        .iter()
        .flat_map(|c| c.iter().rev().copied())
        .collect()
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
}
