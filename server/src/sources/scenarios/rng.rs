//! A small seeded PRNG (SplitMix64): the demo is deterministic given `--seed`.

/// SplitMix64 (Steele, Lea, Flood); good enough for picking demo content.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`; `stream` separates independent sequences
    /// (one per demo task) drawn from the same seed.
    pub fn new(seed: u64, stream: u64) -> Rng {
        let mut rng = Rng(seed ^ stream.wrapping_mul(0xA076_1D64_78BD_642F));
        rng.next_u64();
        rng
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi` (`lo` when the range is empty).
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        lo + self.next_u64() % (hi - lo + 1)
    }

    /// True with probability `percent`/100.
    pub fn percent(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    /// One element of a slice; the demo only picks from non-empty constants.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        let index = self.next_u64() % items.len() as u64;
        &items[index as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_sequence_other_stream_differs() {
        let a: Vec<u64> = (0..8).map(|_| Rng::new(7, 1).next_u64()).collect();
        let mut r1 = Rng::new(7, 1);
        let mut r2 = Rng::new(7, 1);
        let mut r3 = Rng::new(7, 2);
        let s1: Vec<u64> = (0..8).map(|_| r1.next_u64()).collect();
        let s2: Vec<u64> = (0..8).map(|_| r2.next_u64()).collect();
        let s3: Vec<u64> = (0..8).map(|_| r3.next_u64()).collect();
        assert_eq!(s1, s2);
        assert_ne!(s1, s3);
        assert!(a.iter().all(|x| *x == a[0]));
    }

    #[test]
    fn range_stays_inside_its_bounds() {
        let mut r = Rng::new(1, 0);
        for _ in 0..1000 {
            let n = r.range(3, 5);
            assert!((3..=5).contains(&n));
        }
        assert_eq!(r.range(4, 4), 4);
        assert_eq!(r.range(9, 2), 9);
    }
}
