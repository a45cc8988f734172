//! Accesses as written (`xs[i, 2:5]`) and Futhark's rules for what they
//! select: shared by both evaluators, so they agree on which accesses are
//! in bounds.

/// One index of an access, with its values known.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ix {
    Fix(i64),
    Slice {
        start: Option<i64>,
        end: Option<i64>,
        stride: Option<i64>,
    },
}

/// An index checked against a dimension.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Step {
    Fix(usize),
    /// `count` positions from `start`, `step` apart.
    Slice {
        start: usize,
        count: usize,
        step: i64,
    },
}

impl Ix {
    /// This index in a dimension of length `n`, or `None` if it is out of
    /// bounds. Futhark's slice rules: the stride defaults to 1; with a
    /// positive stride `i:j` needs `0 <= i <= j <= n` (defaults 0 and n),
    /// with a negative one `-1 <= j <= i < n` (defaults n-1 and "before
    /// 0"); a zero stride is out of bounds.
    pub fn resolve(self, n: usize) -> Option<Step> {
        let (start, end, stride) = match self {
            Ix::Fix(k) => {
                return usize::try_from(k).ok().filter(|&k| k < n).map(Step::Fix);
            }
            Ix::Slice { start, end, stride } => (start, end, stride),
        };
        let n = n as i128;
        let s = i128::from(stride.unwrap_or(1));
        let count = if s > 0 {
            let i = start.map_or(0, i128::from);
            let j = end.map_or(n, i128::from);
            if !(0 <= i && i <= j && j <= n) {
                return None;
            }
            (j - i + s - 1) / s
        } else if s < 0 {
            let i = start.map_or(n - 1, i128::from);
            let j = end.map_or(-1, i128::from);
            if !(-1 <= j && j <= i && i < n) {
                return None;
            }
            (i - j - s - 1) / -s
        } else {
            return None;
        };
        let start = start.map_or(if s > 0 { 0 } else { n - 1 }, i128::from);
        Some(Step::Slice {
            start: if count > 0 { start as usize } else { 0 },
            count: count as usize,
            step: s as i64,
        })
    }
}

impl Step {
    /// The positions selected, in order.
    pub fn positions(self) -> impl Iterator<Item = usize> {
        let (start, count, step) = match self {
            Step::Fix(k) => (k, 1, 0),
            Step::Slice { start, count, step } => (start, count, step),
        };
        (0..count).map(move |k| (start as i64 + k as i64 * step) as usize)
    }
}

/// `[1, 2:5]`, as the access was written.
pub fn fmt_index(ix: &[Ix]) -> String {
    let o = |x: &Option<i64>| x.map(|v| v.to_string()).unwrap_or_default();
    let parts: Vec<String> = ix
        .iter()
        .map(|i| match i {
            Ix::Fix(k) => k.to_string(),
            Ix::Slice {
                start,
                end,
                stride: Some(s),
            } => format!("{}:{}:{s}", o(start), o(end)),
            Ix::Slice { start, end, .. } => format!("{}:{}", o(start), o(end)),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slice(start: Option<i64>, end: Option<i64>, stride: Option<i64>) -> Ix {
        Ix::Slice { start, end, stride }
    }

    #[test]
    fn slices_follow_futharks_rules() {
        let at = |ix: Ix, n| ix.resolve(n).map(|s| s.positions().collect::<Vec<_>>());
        assert_eq!(at(slice(Some(1), Some(4), None), 5), Some(vec![1, 2, 3]));
        assert_eq!(at(slice(None, None, Some(-2)), 5), Some(vec![4, 2, 0]));
        assert_eq!(
            at(slice(Some(3), Some(-1), Some(-1)), 5),
            Some(vec![3, 2, 1, 0])
        );
        assert_eq!(at(slice(Some(2), Some(2), None), 5), Some(vec![]));
        assert_eq!(at(slice(Some(1), Some(6), None), 5), None);
        assert_eq!(at(slice(None, None, Some(0)), 5), None);
        assert_eq!(at(Ix::Fix(4), 5), Some(vec![4]));
        assert_eq!(at(Ix::Fix(5), 5), None);
        assert_eq!(at(Ix::Fix(-1), 5), None);
    }

    #[test]
    fn indices_print_as_written() {
        let ix = [
            Ix::Fix(1),
            slice(Some(2), None, Some(3)),
            slice(None, Some(5), None),
        ];
        assert_eq!(fmt_index(&ix), "[1, 2::3, :5]");
    }
}
