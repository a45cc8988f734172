//! The resource model: every allocation whose size a user chooses (an
//! array built by `iota`, `replicate`, a broadcast, a value read from input,
//! random test input, the reference semantics' arrays) asks `check` first.
//! Sizes are computed with checked arithmetic, compared with the memory
//! limit of the session's [`Budget`] (`--max-memory`; by default half of
//! physical memory) less what the process already holds, and refused with
//! a `TooLarge` that the caller turns into a run-time error at its span.
//! Element vectors are then reserved with `try_reserve_exact`
//! (`Budget::vec_with_capacity`), so that even an allocation the limit
//! allowed but the system refuses is an error, not an abort. The REPL
//! survives either.
//!
//! The budget is a value the session owns and passes down (the evaluators
//! take it in their options), so two sessions in one process (two kernels,
//! tests on parallel threads) each have their own limit. What the process
//! holds is counted by `Counting`, the global allocator of the `urchin`
//! binary (the one static: an allocator is global by nature); where it is
//! not installed (library users, unit tests) the limit applies to each
//! allocation alone.

use crate::shape::fmt_shape;
use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Bytes currently allocated through `Counting`.
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// A global allocator that counts the bytes the process holds, so that the
/// memory limit is one for the whole process rather than per array.
pub struct Counting;

// SAFETY: every method forwards to `System` with the same arguments; the
// counter is only bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_add(new_size, Ordering::Relaxed);
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }
}

/// Keeps freed memory for reuse instead of handing it back to the system
/// at once, up to `RETAINED` bytes. By default glibc maps every block over
/// 32 MiB afresh and unmaps it on free, so a program producing a large
/// array (a gradient of 10^7 elements) takes a page fault per 4 KiB on
/// every run: two thirds of the time of `sumsq`'s gradient went to the
/// kernel. The evaluator's chunk temporaries (a few hundred kilobytes,
/// allocated and freed at a high rate) were trimmed and faulted in again:
/// a third of k-means' time on one thread, and page faults serialise
/// threads on the process's page tables. Idempotent: the `urchin` binary calls it at start-up, and the
/// evaluator may call it before it runs (so tests and the Jupyter kernel
/// get it too); off glibc the allocator keeps its defaults.
pub fn retain_freed_memory() {
    static DONE: std::sync::Once = std::sync::Once::new();
    DONE.call_once(set_allocator_options);
}

fn set_allocator_options() {
    /// Blocks under this come from the heap, and this much free memory at
    /// its top is kept.
    const RETAINED: i32 = 256 << 20;
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        const M_TRIM_THRESHOLD: i32 = -1;
        const M_MMAP_THRESHOLD: i32 = -3;
        unsafe extern "C" {
            fn mallopt(param: i32, value: i32) -> i32;
        }
        // SAFETY: `mallopt` only sets allocator parameters; a value glibc
        // refuses leaves the default (it returns 0), which is fine.
        unsafe {
            mallopt(M_MMAP_THRESHOLD, RETAINED);
            mallopt(M_TRIM_THRESHOLD, RETAINED);
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = RETAINED;
}

/// Bytes the process holds (0 where `Counting` is not the allocator).
pub fn live_bytes() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// Physical memory, from `/proc/meminfo` where there is one.
fn physical_memory() -> Option<usize> {
    static PHYS: OnceLock<Option<usize>> = OnceLock::new();
    *PHYS.get_or_init(|| {
        let info = std::fs::read_to_string("/proc/meminfo").ok()?;
        let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
        kib.checked_mul(1024)
    })
}

/// The default limit: half of physical memory (8 GiB where it is unknown,
/// or all of a 32-bit address space: WebAssembly's 4 GiB).
pub fn default_limit() -> usize {
    let unknown = usize::try_from(8u64 << 30).unwrap_or(usize::MAX);
    physical_memory().map_or(unknown, |p| p / 2)
}

/// A memory limit: what the allocations a session makes for user-sized
/// data are checked against (with what the process already holds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    limit: usize,
}

impl Default for Budget {
    /// Half of physical memory ([`default_limit`]).
    fn default() -> Budget {
        Budget {
            limit: default_limit(),
        }
    }
}

impl Budget {
    /// A limit of `bytes` (`--max-memory`, `:set max-memory`).
    pub fn new(bytes: usize) -> Budget {
        Budget {
            limit: bytes.max(1),
        }
    }

    /// The limit in bytes.
    pub fn limit(self) -> usize {
        self.limit
    }

    /// Checks that an array of `shape` with elements of `elem_bytes` bytes
    /// may be allocated; returns its number of elements. An empty array is
    /// always allowed, but its other dimensions must still be addressable
    /// (as `ndarray` requires).
    pub fn check(self, shape: &[usize], elem_bytes: usize) -> Result<usize, TooLarge> {
        addressable(shape, elem_bytes)?;
        let elems: usize = shape.iter().product();
        let bytes = elems * elem_bytes;
        let (live, limit) = (live_bytes(), self.limit);
        if bytes > limit.saturating_sub(live) {
            return Err(TooLarge {
                shape: fmt_shape(shape),
                why: Refusal::OverLimit { bytes, live, limit },
            });
        }
        Ok(elems)
    }

    /// `check` for `n` elements of type `T`.
    pub fn check_len<T>(self, n: usize) -> Result<usize, TooLarge> {
        self.check(&[n], std::mem::size_of::<T>())
    }

    /// An empty vector with room for `n` elements of `T`, checked against
    /// the limit and reserved fallibly.
    pub fn vec_with_capacity<T>(self, n: usize) -> Result<Vec<T>, TooLarge> {
        self.check_len::<T>(n)?;
        let mut v = Vec::new();
        v.try_reserve_exact(n).map_err(|_| TooLarge {
            shape: fmt_shape(&[n]),
            why: Refusal::Refused {
                bytes: n * std::mem::size_of::<T>(),
            },
        })?;
        Ok(v)
    }
}

/// Parses a size such as `4G`, `512MiB`, `1000000` or `50%` (of physical
/// memory).
pub fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let bad = || {
        format!(
            "`{s}` is not a size: write bytes, or a number with K, M, G or T, or a percentage of physical memory"
        )
    };
    if let Some(p) = t.strip_suffix('%') {
        let p: f64 = p.trim().parse().map_err(|_| bad())?;
        if !(p > 0.0 && p <= 100.0) {
            return Err(format!(
                "`{s}`: a percentage must be above 0 and at most 100"
            ));
        }
        let phys =
            physical_memory().ok_or("physical memory is unknown here: give a size in bytes")?;
        return Ok((phys as f64 * p / 100.0) as usize);
    }
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let num: f64 = num.parse().map_err(|_| bad())?;
    let unit = unit.trim().to_ascii_lowercase();
    let unit = unit.trim_end_matches("ib").trim_end_matches('b');
    let scale: f64 = match unit {
        "" => 1.0,
        "k" => 1024.0,
        "m" => 1024.0 * 1024.0,
        "g" => 1024.0 * 1024.0 * 1024.0,
        "t" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return Err(bad()),
    };
    let bytes = num * scale;
    if !(bytes >= 1.0 && bytes < usize::MAX as f64) {
        return Err(bad());
    }
    Ok(bytes as usize)
}

/// A size in bytes for people: `1.5 GiB`.
pub fn human(bytes: usize) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut x = bytes as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < UNITS.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{x:.1} {}", UNITS[u])
    }
}

/// An allocation refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooLarge {
    /// What was asked for, as a shape: `[3][4]`.
    pub shape: String,
    pub why: Refusal,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The size does not fit in an address.
    Unaddressable,
    /// `bytes` more would take the process past `limit`, of which `live`
    /// is in use.
    OverLimit {
        bytes: usize,
        live: usize,
        limit: usize,
    },
    /// Within the limit, but the system had no memory to give.
    Refused { bytes: usize },
}

impl fmt::Display for TooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shape = &self.shape;
        match self.why {
            Refusal::Unaddressable => {
                write!(f, "an array of shape {shape} is too large to address")
            }
            Refusal::OverLimit { bytes, live, limit } if live == 0 || bytes > limit => write!(
                f,
                "out of memory: an array of shape {shape} needs {}, over the memory limit of {} \
                 (raise it with --max-memory)",
                human(bytes),
                human(limit)
            ),
            Refusal::OverLimit { bytes, live, limit } => write!(
                f,
                "out of memory: an array of shape {shape} needs {}, but {} of the memory limit of {} \
                 is in use (raise it with --max-memory)",
                human(bytes),
                human(live),
                human(limit)
            ),
            Refusal::Refused { bytes } => write!(
                f,
                "out of memory: the system could not provide {} for an array of shape {shape}",
                human(bytes)
            ),
        }
    }
}

impl std::error::Error for TooLarge {}

/// Fails unless an array of `shape` with elements of `elem_bytes` bytes
/// can be addressed at all, whatever the limit (an empty array's other
/// dimensions too, as `ndarray` requires).
pub fn addressable(shape: &[usize], elem_bytes: usize) -> Result<(), TooLarge> {
    let fits = shape
        .iter()
        .try_fold(elem_bytes.max(1), |acc, &d| acc.checked_mul(d.max(1)))
        .is_some_and(|b| b <= isize::MAX as usize);
    if fits {
        Ok(())
    } else {
        Err(TooLarge {
            shape: fmt_shape(shape),
            why: Refusal::Unaddressable,
        })
    }
}

/// The most bytes of program text read from one file (a program, a
/// `:load`, a test file, a literate document): hand-written programs are
/// kilobytes and generated ones megabytes, so past this it is not a
/// program (`urchin check /dev/zero`), and reading stops.
pub const MAX_SOURCE: usize = 64 << 20;

/// The first room reserved for reading; after it the buffer grows by half
/// its size at a time, each step checked.
const READ_START: usize = 1 << 16;

/// Reads `r` to its end into memory, taking at most `cap` bytes and never
/// more than `budget` allows: the buffer grows by half at a time,
/// each step checked (`check`) and reserved fallibly, so that an endless
/// or huge input (`/dev/zero`, a gzip bomb) is an error after at most
/// `cap` bytes rather than an abort after gigabytes. `what` names the
/// input in the error.
pub fn read_bounded(
    mut r: impl std::io::Read,
    cap: usize,
    budget: Budget,
    what: &str,
) -> std::io::Result<Vec<u8>> {
    use std::io::{Error, ErrorKind};
    let mut data: Vec<u8> = Vec::new();
    loop {
        if data.len() == data.capacity() {
            let want = data.len().saturating_add((data.len() / 2).max(READ_START));
            if data.len() >= cap {
                // One byte more means the input is past the cap.
                let mut probe = [0u8; 1];
                if r.read(&mut probe)? == 0 {
                    return Ok(data);
                }
                return Err(Error::other(format!(
                    "{what} is larger than {}: it was not read further",
                    human(cap)
                )));
            }
            let want = want.min(cap);
            if budget.check(&[want - data.len()], 1).is_err() {
                return Err(Error::new(
                    ErrorKind::OutOfMemory,
                    format!(
                        "{what} did not fit in memory: {} read, within a memory limit of {} \
                         (raise it with --max-memory)",
                        human(data.len()),
                        human(budget.limit())
                    ),
                ));
            }
            data.try_reserve_exact(want - data.len()).map_err(|_| {
                Error::new(
                    ErrorKind::OutOfMemory,
                    format!("{what}: the system could not provide {}", human(want)),
                )
            })?;
        }
        let len = data.len();
        let room = data.capacity() - len;
        data.resize(len + room, 0);
        match r.read(&mut data[len..]) {
            Ok(0) => {
                data.truncate(len);
                return Ok(data);
            }
            Ok(n) => data.truncate(len + n),
            Err(e) if e.kind() == ErrorKind::Interrupted => data.truncate(len),
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn reading_stops_at_the_cap() {
        let zeros = std::io::repeat(0).take(10 << 20);
        let e = read_bounded(zeros, 3 << 20, Budget::default(), "the input").unwrap_err();
        assert!(e.to_string().contains("larger than 3.0 MiB"), "{e}");
        let exact = std::io::repeat(7).take(3 << 20);
        assert_eq!(
            read_bounded(exact, 3 << 20, Budget::default(), "x")
                .unwrap()
                .len(),
            3 << 20
        );
        let small = read_bounded(&b"abc"[..], 3 << 20, Budget::default(), "x").unwrap();
        assert_eq!(small, b"abc");
    }

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("4K"), Ok(4096));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("1.5m"), Ok(3 << 19));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("0").is_err());
        assert!(parse_size("150%").is_err());
    }

    #[test]
    fn overflowing_and_huge_shapes_are_refused() {
        let b = Budget::default();
        let e = b.check(&[1 << 32, 1 << 32, 1 << 32], 4).unwrap_err();
        assert_eq!(e.why, Refusal::Unaddressable);
        // Empty, but the other dimensions overflow an address.
        assert!(b.check(&[0, 1 << 32, 1 << 32], 4).is_err());
        assert!(addressable(&[0, 1 << 32, 1 << 32], 4).is_err());
        assert_eq!(b.check(&[0, 1 << 20], 8), Ok(0));
        let e = b.check(&[1 << 50], 8).unwrap_err();
        assert!(e.to_string().contains("--max-memory"), "{e}");
        assert!(b.vec_with_capacity::<u64>(1 << 60).is_err());
        assert_eq!(b.vec_with_capacity::<u8>(10).unwrap().capacity(), 10);
    }

    #[test]
    fn each_budget_has_its_own_limit() {
        let (small, large) = (Budget::new(1 << 20), Budget::new(1 << 30));
        assert!(small.check(&[1 << 18], 8).is_err());
        assert_eq!(large.check(&[1 << 18], 8), Ok(1 << 18));
    }
}
