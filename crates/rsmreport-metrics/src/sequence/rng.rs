//! numpy's `default_rng(seed)` as sacreBLEU's significance tests draw from
//! it (sequence.md 3.1): `SeedSequence` -> `PCG64` (XSL-RR 128/64), 32-bit
//! outputs split low half first, Lemire's bounded integers
//! (`choice(n, size=(B, n))`) and boolean draws (`integers(2, dtype=bool)`).
//! Reproduced bit for bit; pure arithmetic, no I/O.

const MULT: u128 = 0x2360_ed05_1fc6_5da4_4385_df64_9fcc_f645;

/// numpy's `SeedSequence(seed).generate_state(4, np.uint64)` for a seed
/// below 2^32 (sequence.md's seeds are `u32`).
fn seed_state(seed: u32) -> [u64; 4] {
    const INIT_A: u32 = 0x43b0_d7e5;
    const MULT_A: u32 = 0x931e_8875;
    const INIT_B: u32 = 0x8b51_f9dd;
    const MULT_B: u32 = 0x58f3_8ded;
    const MIX_MULT_L: u32 = 0xca01_f9dd;
    const MIX_MULT_R: u32 = 0x4973_f715;
    let mut hash_const = INIT_A;
    let mut hashmix = |value: u32| -> u32 {
        let mut v = value ^ hash_const;
        hash_const = hash_const.wrapping_mul(MULT_A);
        v = v.wrapping_mul(hash_const);
        v ^ (v >> 16)
    };
    let mix = |x: u32, y: u32| -> u32 {
        let r = MIX_MULT_L
            .wrapping_mul(x)
            .wrapping_sub(MIX_MULT_R.wrapping_mul(y));
        r ^ (r >> 16)
    };
    let entropy = [seed];
    let mut pool = [0u32; 4];
    for (i, p) in pool.iter_mut().enumerate() {
        *p = hashmix(entropy.get(i).copied().unwrap_or(0));
    }
    for src in 0..4 {
        for dst in 0..4 {
            if src != dst {
                let h = hashmix(pool[src]);
                pool[dst] = mix(pool[dst], h);
            }
        }
    }
    let mut hash_const = INIT_B;
    let mut words = [0u32; 8];
    for (i, w) in words.iter_mut().enumerate() {
        let mut v = pool[i % 4] ^ hash_const;
        hash_const = hash_const.wrapping_mul(MULT_B);
        v = v.wrapping_mul(hash_const);
        *w = v ^ (v >> 16);
    }
    let mut out = [0u64; 4];
    for (k, o) in out.iter_mut().enumerate() {
        *o = words[2 * k] as u64 | ((words[2 * k + 1] as u64) << 32);
    }
    out
}

/// numpy's `Generator(PCG64(SeedSequence(seed)))`.
#[derive(Debug, Clone)]
pub struct NumpyRng {
    state: u128,
    inc: u128,
    pending: Option<u32>,
}

impl NumpyRng {
    /// `numpy.random.default_rng(seed)`.
    pub fn new(seed: u32) -> NumpyRng {
        let s = seed_state(seed);
        let initstate = ((s[0] as u128) << 64) | s[1] as u128;
        let initseq = ((s[2] as u128) << 64) | s[3] as u128;
        let mut rng = NumpyRng {
            state: 0,
            inc: (initseq << 1) | 1,
            pending: None,
        };
        rng.step();
        rng.state = rng.state.wrapping_add(initstate);
        rng.step();
        rng
    }

    fn step(&mut self) {
        self.state = self.state.wrapping_mul(MULT).wrapping_add(self.inc);
    }

    /// The next 64-bit output (XSL-RR).
    pub fn next_u64(&mut self) -> u64 {
        self.step();
        let s = self.state;
        let x = ((s >> 64) as u64) ^ (s as u64);
        x.rotate_right((s >> 122) as u32)
    }

    /// The next 32-bit output: the low half of a 64-bit output, then its high half.
    pub fn next_u32(&mut self) -> u32 {
        if let Some(v) = self.pending.take() {
            return v;
        }
        let next = self.next_u64();
        self.pending = Some((next >> 32) as u32);
        next as u32
    }

    /// One draw of `integers(0, n)` for `n - 1 < 2^32 - 1` (Lemire).
    pub fn bounded(&mut self, n: u64) -> u64 {
        let rng = n - 1;
        if rng == 0 {
            return 0;
        }
        if rng == 0xFFFF_FFFF {
            return self.next_u32() as u64;
        }
        let excl = (rng + 1) as u32 as u64;
        let mut m = self.next_u32() as u64 * excl;
        let mut leftover = m & 0xFFFF_FFFF;
        if leftover < excl {
            let threshold = (u32::MAX as u64 - rng) % excl;
            while leftover < threshold {
                m = self.next_u32() as u64 * excl;
                leftover = m & 0xFFFF_FFFF;
            }
        }
        m >> 32
    }

    /// `choice(n, size=(b, n))`, row-major: `b * n` indices.
    pub fn choice_matrix(&mut self, n: usize, b: usize) -> Vec<u32> {
        (0..n * b).map(|_| self.bounded(n as u64) as u32).collect()
    }

    /// `integers(2, size=(t, n), dtype=bool)`, row-major.
    pub fn bool_matrix(&mut self, n: usize, t: usize) -> Vec<bool> {
        let mut out = Vec::with_capacity(n * t);
        let mut buf = 0u32;
        let mut left = 0;
        for _ in 0..n * t {
            if left == 0 {
                buf = self.next_u32();
                left = 31;
            } else {
                buf >>= 1;
                left -= 1;
            }
            out.push(buf & 1 == 1);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// numpy's own outputs for the same seeds.
    #[test]
    fn matches_numpy() {
        let mut r = NumpyRng::new(12345);
        let raw: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        assert_eq!(raw, RAW_12345);
        let mut r = NumpyRng::new(12345);
        let c: Vec<u64> = (0..5).map(|_| r.bounded(10)).collect();
        assert_eq!(c, CHOICE_12345);
        let mut r = NumpyRng::new(0);
        assert_eq!(r.bool_matrix(8, 1), BOOL_0);
    }

    // Printed by numpy 2.4.6 (`PCG64(12345).random_raw(3)`,
    // `default_rng(12345).choice(10, 5)`, `default_rng(0).integers(2, size=8, dtype=bool)`).
    const RAW_12345: [u64; 3] = [
        4193609425186963869,
        5843160025838961886,
        14708796524633321433,
    ];
    const CHOICE_12345: [u64; 5] = [6, 2, 7, 3, 2];
    const BOOL_0: [bool; 8] = [true, true, true, true, true, false, true, false];
}
