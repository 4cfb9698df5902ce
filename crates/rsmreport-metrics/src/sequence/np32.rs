//! numpy 2's promotion rule for a scalar that may be binary32 (NEP 50), as
//! sacreBLEU's bootstrap meets it (sequence.md 3.2): an operation with a
//! binary32 operand rounds the other operand (a Python float or int) to
//! binary32 and runs in binary32; two Python numbers stay binary64. Pure
//! arithmetic; no I/O.

use std::ops::{Add, Div, Mul, Sub};

/// A number that is either a numpy `float32` scalar or a Python float.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Num {
    /// The value (exactly representable in binary32 when `f32`).
    pub v: f64,
    /// Whether it is a binary32 scalar.
    pub f32: bool,
}

impl Num {
    /// A Python float (or int).
    pub fn py(v: f64) -> Num {
        Num { v, f32: false }
    }

    /// A numpy `float32` scalar (`v` is rounded).
    pub fn f32(v: f64) -> Num {
        Num {
            v: v as f32 as f64,
            f32: true,
        }
    }

    /// `py` or `f32` by a flag.
    pub fn new(v: f64, f32: bool) -> Num {
        if f32 {
            Num::f32(v)
        } else {
            Num::py(v)
        }
    }
}

fn op(a: Num, b: Num, f: impl Fn(f64, f64) -> f64, g: impl Fn(f32, f32) -> f32) -> Num {
    if a.f32 || b.f32 {
        Num {
            v: g(a.v as f32, b.v as f32) as f64,
            f32: true,
        }
    } else {
        Num::py(f(a.v, b.v))
    }
}

impl Add for Num {
    type Output = Num;
    fn add(self, b: Num) -> Num {
        op(self, b, |x, y| x + y, |x, y| x + y)
    }
}

impl Sub for Num {
    type Output = Num;
    fn sub(self, b: Num) -> Num {
        op(self, b, |x, y| x - y, |x, y| x - y)
    }
}

impl Mul for Num {
    type Output = Num;
    fn mul(self, b: Num) -> Num {
        op(self, b, |x, y| x * y, |x, y| x * y)
    }
}

impl Div for Num {
    type Output = Num;
    fn div(self, b: Num) -> Num {
        op(self, b, |x, y| x / y, |x, y| x / y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary32_wins_over_python_numbers() {
        let third = Num::f32(1.0) / Num::py(3.0);
        assert!(third.f32);
        assert_eq!(third.v, (1.0f32 / 3.0f32) as f64);
        let py = Num::py(1.0) / Num::py(3.0);
        assert!(!py.f32);
        assert_eq!(py.v, 1.0 / 3.0);
    }
}
