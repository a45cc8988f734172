//! Where each region runs, measured per region: the threshold
//! (`threshold.rs`) says when offloading may pay, from a calibration
//! kernel; the cost of a real region on either side depends on its kind
//! (a vectorised bulk `map` on the evaluator, a reduction with a few long
//! work items on the device, ...), which no work estimate captures. So a
//! region above the threshold runs once on the evaluator and once on the
//! device, both timed, and from then on where it was faster, scaled to
//! its work. The evaluator goes first: a run there costs no compile or
//! transfer, and its time bounds what a device probe may risk: a region
//! the evaluator already runs several times faster than the device's
//! calibrated cost per element predicts (a matrix product, which the
//! evaluator hands to a blocked GEMM: 0.1 s, against 34 s on a CPU
//! driver) is never run on the device at all. A region settled on the
//! evaluator whose device time was close is timed on the device again
//! later, with backoff (see `REPROBE_WITHIN`).
//! A region is known by the text of its kernels, which is the same for
//! every run of the same statements on arrays of the same rank.

use std::collections::HashMap;
use std::fmt::Write;
use std::time::Duration;

/// Where a region runs this time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Side {
    Device,
    Host,
    /// On the evaluator, timed: one of the region's first runs there.
    ProbeHost,
    /// On the device, timed, the fastest run counting: one of the
    /// region's first runs there, or a re-probe.
    ProbeDevice,
}

/// One run: the work (estimated element operations) and its time.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Sample {
    work: f64,
    secs: f64,
}

impl Sample {
    /// The time predicted for `work`: `fixed` seconds (the device's
    /// round trip) plus the rest in proportion to the work.
    fn predict(&self, work: f64, fixed: f64) -> f64 {
        let fixed = fixed.min(self.secs);
        fixed + (self.secs - fixed) * work / self.work.max(1.0)
    }

    /// The faster of two runs of the same work, else the later.
    fn merge(old: Option<Sample>, new: Sample) -> Sample {
        match old {
            Some(o) if o.work == new.work && o.secs < new.secs => o,
            _ => new,
        }
    }
}

#[derive(Clone, Debug)]
struct Site {
    /// The region's statements, for `:device`.
    what: String,
    device: Option<Sample>,
    host: Option<Sample>,
    /// Runs timed on each side (device, evaluator).
    runs: (u32, u32),
    /// The device run asked for last is a probe (not a settled run).
    probing: bool,
    /// Runs on the evaluator left before the next re-probe; `None` while
    /// none is scheduled (the region runs on the device, or was far
    /// slower there).
    reprobe: Option<u32>,
    /// Runs on the evaluator between re-probes: doubles after each.
    every: u32,
    /// Re-probes made.
    reprobes: u32,
    /// The evaluator's time beat the device's best case: not timed there.
    hopeless: bool,
}

impl Site {
    /// Counts a run kept on the evaluator; whether a re-probe is due.
    fn kept(&mut self) -> bool {
        match self.reprobe {
            Some(0) => true,
            Some(n) => {
                self.reprobe = Some(n - 1);
                false
            }
            None => false,
        }
    }
}

/// Runs timed on each side before a region settles, the fastest counting:
/// a first run on either side can be slowed by a cold cache, another
/// process or a driver's first launch (GMM's gradient region: 1.8 ms on
/// the evaluator the first time, about 1.1 ms after).
const PROBES: u32 = 2;

/// How much faster a region must be on the device to run there: the
/// evaluator's statements that follow a region run on the device were
/// seen to run slower (on a CPU driver, whose threads share the cores),
/// which the region's own time does not show.
const MARGIN: f64 = 1.25;

/// A region settled on the evaluator is timed on the device again if its
/// device time was at most this many times the evaluator's: a CPU
/// driver's first runs of a region are slower than its steady state for
/// about four runs (k-means' gradient: 9.3, 8.9, 6.0, 5.1, then 4.6 ms),
/// so two probes in that phase can lose to the evaluator by a region
/// that is three times faster on the device once warm (sum of squares:
/// 8.6 ms against 8.7, then 2.5 ms). A region far slower on the device
/// is never timed there again.
const REPROBE_WITHIN: f64 = 3.0;

/// Runs on the evaluator before the first re-probe, and the most between
/// two: the interval doubles from the first to the last (4, 8, ..., 64),
/// so a region that stays on the evaluator pays a probe once in 64 runs.
const REPROBE_FIRST: u32 = 4;
const REPROBE_MAX: u32 = 64;

/// Re-probes that belong to settling (a benchmark warms up until they
/// are made): those whose interval covers a CPU driver's cold phase.
const SETTLING_REPROBES: u32 = 2;

/// What the calibration (`threshold.rs`) says a region costs on the
/// device at best: a fixed cost per region and a cost per element
/// operation, in seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DeviceCost {
    pub fixed: f64,
    pub per_op: f64,
}

impl DeviceCost {
    /// The least time the device can take for `work`.
    fn floor(&self, work: f64) -> f64 {
        self.fixed + self.per_op * work
    }
}

/// The key of a region's measurements: the text of its kernels and the
/// evaluator's thread count. A region's time on the evaluator depends on
/// the count (the gradient of the sum of squares: 47.7 ms on one thread,
/// 29.0 ms on two), and a CPU driver's threads share the cores with the
/// evaluator's, so a region measured faster on the device than on one
/// thread can be slower than on two: it is measured again at each count.
pub fn key(kernels: u64, threads: usize) -> u64 {
    kernels ^ (threads as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// The measured regions of this session.
#[derive(Default)]
pub struct Sites {
    sites: HashMap<u64, Site>,
    /// First-seen order, for the report.
    order: Vec<u64>,
    /// Runs made to measure a region (on either side) so far.
    pub measuring: u64,
}

impl Sites {
    pub fn clear(&mut self) {
        self.sites.clear();
        self.order.clear();
    }

    /// Where region `key` (its statements described by `what`) runs with
    /// `work`, given what the device's calibration says it costs there.
    pub fn choose(&mut self, key: u64, what: &str, work: f64, cost: DeviceCost) -> Side {
        let site = self.sites.entry(key).or_insert_with(|| {
            self.order.push(key);
            Site {
                what: what.to_string(),
                device: None,
                host: None,
                runs: (0, 0),
                probing: false,
                reprobe: None,
                every: REPROBE_FIRST,
                reprobes: 0,
                hopeless: false,
            }
        });
        let side = match (site.device, site.host, site.runs) {
            (_, None, _) => Side::ProbeHost,
            (None, Some(h), _) if cost.floor(work) > h.predict(work, 0.0) * REPROBE_WITHIN => {
                site.hopeless = true;
                Side::Host
            }
            (None, Some(_), _) => {
                site.hopeless = false;
                Side::ProbeDevice
            }
            (_, _, (d, h)) if h < PROBES && d == h => Side::ProbeHost,
            (_, _, (d, h)) if d < PROBES && d < h => Side::ProbeDevice,
            (Some(d), Some(h), _) => {
                let (d, h) = (d.predict(work, cost.fixed), h.predict(work, 0.0));
                if d * MARGIN < h {
                    site.reprobe = None;
                    Side::Device
                } else if d > h * REPROBE_WITHIN {
                    site.reprobe = None;
                    Side::Host
                } else {
                    site.reprobe.get_or_insert(site.every);
                    if site.kept() {
                        site.reprobes += 1;
                        site.every = (site.every * 2).min(REPROBE_MAX);
                        site.reprobe = Some(site.every);
                        Side::ProbeDevice
                    } else {
                        Side::Host
                    }
                }
            }
        };
        site.probing = side == Side::ProbeDevice;
        self.measuring += u64::from(matches!(side, Side::ProbeDevice | Side::ProbeHost));
        side
    }

    /// A run of region `key` kept on the evaluator by a decision
    /// remembered elsewhere; whether it is time to re-probe it (then the
    /// caller asks [`Sites::choose`] again, which says so).
    pub fn kept(&mut self, key: u64) -> bool {
        self.sites.get_mut(&key).is_some_and(Site::kept)
    }

    /// Whether a region settled on the evaluator has one of its first
    /// re-probes still to come.
    pub fn settling(&self) -> bool {
        self.sites
            .values()
            .any(|s| s.reprobe.is_some() && s.reprobes < SETTLING_REPROBES)
    }

    /// A probe's time merges by the fastest-counts rule. Once a region is
    /// settled on the device, each run moves its sample halfway to the new
    /// time instead: a first run can be faster than the region's steady
    /// state (GMM's gradient ran in 0.75 ms once, then 1.6 ms on every
    /// run, slower than on the evaluator), and the region then goes back
    /// within a few runs, while one slow run alone (another process) does
    /// not move it.
    pub fn ran_on_device(&mut self, key: u64, work: f64, t: Duration) {
        let Some(s) = self.sites.get_mut(&key) else {
            return;
        };
        s.runs.0 += 1;
        let secs = t.as_secs_f64();
        s.device = Some(match s.device {
            Some(old) if !s.probing && old.work == work => Sample {
                work,
                secs: (old.secs + secs) / 2.0,
            },
            old => Sample::merge(old, Sample { work, secs }),
        });
    }

    /// The host copied a result of region `key` back, which took `t`: a
    /// cost of running it on the device (run on the evaluator, its results
    /// would be on the host already). Charged to its latest device time,
    /// which the next runs there average with theirs.
    pub fn copied_back(&mut self, key: u64, t: Duration) {
        if let Some(d) = self.sites.get_mut(&key).and_then(|s| s.device.as_mut()) {
            d.secs += t.as_secs_f64();
        }
    }

    /// The evaluator's timed runs (its probes, and every run of a region
    /// kept there as faster there): the fastest counts.
    pub fn ran_on_host(&mut self, key: u64, work: f64, t: Duration) {
        if let Some(s) = self.sites.get_mut(&key) {
            s.runs.1 += 1;
            let new = Sample {
                work,
                secs: t.as_secs_f64(),
            };
            s.host = Some(Sample::merge(s.host, new));
        }
    }

    /// The `:device` lines: how many regions were measured, where they run,
    /// and the last few with their times.
    pub fn report(&self, out: &mut String) {
        if self.order.is_empty() {
            return;
        }
        let hopeless = self.sites.values().filter(|s| s.hopeless).count();
        let both: Vec<(&Site, Sample, Sample)> = self
            .order
            .iter()
            .filter_map(|k| {
                let s = &self.sites[k];
                Some((s, s.device?, s.host?))
            })
            .collect();
        let faster = both
            .iter()
            .filter(|(_, d, h)| d.predict(d.work, 0.0) < h.predict(d.work, 0.0))
            .count();
        let reprobes: u32 = both.iter().map(|(s, _, _)| s.reprobes).sum();
        let _ = writeln!(
            out,
            "regions measured on both sides: {} ({} faster on the device, {} on the evaluator); {} re-probes on the device; {hopeless} never run on the device (the evaluator beat its best case)",
            both.len(),
            faster,
            both.len() - faster,
            reprobes
        );
        const SHOWN: usize = 8;
        for (s, d, h) in both.iter().rev().take(SHOWN).rev() {
            let again = match (s.reprobes, s.reprobe) {
                (0, None) => String::new(),
                (k, None) => format!("; re-probed {k}x"),
                (k, Some(n)) => format!("; re-probed {k}x, again after {n} runs"),
            };
            let _ = writeln!(
                out,
                "  {} work {:.0}: device {:.3} ms, evaluator {:.3} ms{again}",
                s.what,
                d.work,
                d.secs * 1e3,
                h.predict(d.work, 0.0) * 1e3
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: f64) -> Duration {
        Duration::from_secs_f64(x / 1e3)
    }

    /// A device whose calibration says only what a region costs at least.
    fn fixed(secs: f64) -> DeviceCost {
        DeviceCost {
            fixed: secs,
            per_op: 0.0,
        }
    }

    /// Measures region `key` as `choose` asks: twice on each side,
    /// alternating from the evaluator, with these times (device,
    /// evaluator, device, evaluator).
    fn measure(s: &mut Sites, key: u64, work: f64, times: [f64; 4]) {
        for k in 0..4 {
            let side = s.choose(key, "[map]", work, fixed(1e-4));
            if k % 2 == 0 {
                assert_eq!(side, Side::ProbeHost, "run {k}");
                s.ran_on_host(key, work, ms(times[k + 1]));
            } else {
                assert_eq!(side, Side::ProbeDevice, "run {k}");
                s.ran_on_device(key, work, ms(times[k - 1]));
            }
        }
    }

    #[test]
    fn a_region_is_not_run_on_a_device_that_cannot_win() {
        let mut s = Sites::default();
        // A CPU driver calibrated at 0.27 ns per element operation, and a
        // matrix product of 8e9 multiply-adds the evaluator ran in 0.1 s:
        // at least 2.2 s on the device.
        let driver = DeviceCost {
            fixed: 7e-5,
            per_op: 0.27e-9,
        };
        assert_eq!(s.choose(1, "[map]", 8e9, driver), Side::ProbeHost);
        s.ran_on_host(1, 8e9, ms(100.0));
        assert_eq!(s.choose(1, "[map]", 8e9, driver), Side::Host);
        assert!(!s.settling());
        assert!(!s.kept(1));
        assert_eq!(s.measuring, 1);
        // A region the device's best case could win is timed there.
        assert_eq!(s.choose(2, "[map]", 1e8, driver), Side::ProbeHost);
        s.ran_on_host(2, 1e8, ms(60.0));
        assert_eq!(s.choose(2, "[map]", 1e8, driver), Side::ProbeDevice);
        let mut r = String::new();
        s.report(&mut r);
        assert!(r.contains("1 never run on the device"), "{r}");
    }

    #[test]
    fn a_region_runs_where_it_was_measured_faster() {
        let mut s = Sites::default();
        measure(&mut s, 1, 1e6, [2.0, 1.0, 2.1, 1.1]);
        assert_eq!(s.choose(1, "[map]", 1e6, fixed(1e-4)), Side::Host);
        assert_eq!(s.measuring, 4);
        // Ten times the work: the device's fixed cost is paid once.
        assert_eq!(s.choose(1, "[map]", 1e7, fixed(1.9e-3)), Side::Device);
        // Another region is measured on its own.
        measure(&mut s, 2, 1e6, [1.0, 3.0, 1.0, 3.0]);
        assert_eq!(s.choose(2, "[reduce]", 1e6, fixed(1e-4)), Side::Device);
        assert_eq!(s.measuring, 8);
        let mut r = String::new();
        s.report(&mut r);
        assert!(
            r.contains("2 (1 faster on the device, 1 on the evaluator)"),
            "{r}"
        );
    }

    #[test]
    fn copying_results_back_counts_against_the_device() {
        let mut s = Sites::default();
        measure(&mut s, 1, 1e6, [1.0, 3.0, 1.0, 3.0]);
        assert_eq!(s.choose(1, "[map]", 1e6, fixed(0.0)), Side::Device);
        // The host read its result, which took longer than the region.
        s.copied_back(1, ms(2.5));
        assert_eq!(s.choose(1, "[map]", 1e6, fixed(0.0)), Side::Host);
        // A region never run on the device has nothing to charge.
        s.copied_back(2, ms(2.5));
        assert!(!s.sites.contains_key(&2));
    }

    #[test]
    fn the_fastest_probe_of_each_side_counts() {
        let mut s = Sites::default();
        // A cold first run on each side: the evaluator's first run looked
        // slower than the device, its second is faster.
        measure(&mut s, 1, 1e6, [1.5, 1.8, 1.4, 0.3]);
        assert_eq!(s.choose(1, "[reduce]", 1e6, fixed(0.0)), Side::Host);
        assert_eq!(s.choose(1, "[reduce]", 1e6, fixed(0.0)), Side::Host);
        assert_eq!(s.measuring, 4);
    }

    #[test]
    fn a_region_slower_on_the_device_than_measured_goes_back() {
        let mut s = Sites::default();
        measure(&mut s, 1, 1e6, [0.75, 1.8, 0.8, 1.8]);
        assert_eq!(s.choose(1, "[map]", 1e6, fixed(0.0)), Side::Device);
        for _ in 0..2 {
            s.ran_on_device(1, 1e6, ms(1.6));
            assert_eq!(s.choose(1, "[map]", 1e6, fixed(0.0)), Side::Device);
        }
        s.ran_on_device(1, 1e6, ms(1.6));
        assert_eq!(s.choose(1, "[map]", 1e6, fixed(0.0)), Side::Host);
        // One slow run of a region settled on the device does not move it.
        measure(&mut s, 2, 1e6, [1.0, 5.0, 1.0, 5.0]);
        s.ran_on_device(2, 1e6, ms(4.0));
        assert_eq!(s.choose(2, "[map]", 1e6, fixed(0.0)), Side::Device);
    }

    /// Runs region `key` (settled on the evaluator) as the caller does:
    /// asked once, then kept by the remembered decision until a re-probe
    /// is due, which `choose` then asks for. The runs on the evaluator
    /// before it.
    fn runs_until_reprobe(s: &mut Sites, key: u64) -> u32 {
        assert_eq!(s.choose(key, "[reduce]", 1e6, fixed(0.0)), Side::Host);
        let mut n = 1;
        while !s.kept(key) {
            n += 1;
            assert!(n <= 1000, "no re-probe");
        }
        assert_eq!(
            s.choose(key, "[reduce]", 1e6, fixed(0.0)),
            Side::ProbeDevice
        );
        n
    }

    #[test]
    fn a_region_whose_cold_device_probes_lost_is_probed_again() {
        let mut s = Sites::default();
        // A CPU driver's cold runs: about even with the evaluator.
        measure(&mut s, 1, 1e6, [9.4, 8.9, 8.6, 8.7]);
        assert_eq!(runs_until_reprobe(&mut s, 1), REPROBE_FIRST);
        assert!(s.settling());
        assert_eq!(s.measuring, 5);
        // Warm, it wins: the fastest device run counts, and it moves.
        s.ran_on_device(1, 1e6, ms(2.5));
        assert_eq!(s.choose(1, "[reduce]", 1e6, fixed(0.0)), Side::Device);
        assert!(!s.settling());
        let mut r = String::new();
        s.report(&mut r);
        assert!(r.contains("1 re-probes on the device"), "{r}");
        assert!(
            r.contains("device 2.500 ms, evaluator 8.700 ms; re-probed 1x"),
            "{r}"
        );
        // A slower re-probe does not replace a faster probe.
        measure(&mut s, 2, 1e6, [1.5, 1.0, 1.4, 1.0]);
        runs_until_reprobe(&mut s, 2);
        s.ran_on_device(2, 1e6, ms(3.0));
        assert_eq!(s.choose(2, "[reduce]", 1e6, fixed(0.0)), Side::Host);
        s.report(&mut r);
        assert!(r.contains("device 1.400 ms"), "{r}");
    }

    #[test]
    fn re_probes_back_off_exponentially() {
        let mut s = Sites::default();
        measure(&mut s, 1, 1e6, [1.5, 1.0, 1.5, 1.0]);
        for (k, want) in [4, 8, 16, 32, 64, 64, 64].into_iter().enumerate() {
            assert_eq!(runs_until_reprobe(&mut s, 1), want, "re-probe {k}");
            s.ran_on_device(1, 1e6, ms(1.5));
            // Settling covers the first re-probes, not those that follow.
            assert_eq!(s.settling(), k + 1 < SETTLING_REPROBES as usize);
        }
        assert_eq!(s.measuring, 4 + 7);
    }

    #[test]
    fn a_region_far_slower_on_the_device_is_never_probed_again() {
        let mut s = Sites::default();
        measure(&mut s, 1, 1e6, [3.5, 1.0, 3.2, 1.1]);
        assert_eq!(s.choose(1, "[map]", 1e6, fixed(0.0)), Side::Host);
        assert!(!s.settling());
        for _ in 0..1000 {
            assert!(!s.kept(1));
        }
        assert_eq!(s.choose(1, "[map]", 1e6, fixed(0.0)), Side::Host);
        assert_eq!(s.measuring, 4);
    }

    #[test]
    fn a_region_is_measured_again_at_another_thread_count() {
        let mut s = Sites::default();
        // The sum of squares' gradient region: faster on the device than
        // on one thread of the evaluator, slower than on two.
        let (one, two) = (key(7, 1), key(7, 2));
        assert_ne!(one, two);
        measure(&mut s, one, 1e7, [30.0, 47.7, 30.0, 47.7]);
        assert_eq!(s.choose(one, "[map]", 1e7, fixed(0.0)), Side::Device);
        measure(&mut s, two, 1e7, [30.0, 29.0, 30.0, 29.0]);
        assert_eq!(s.choose(two, "[map]", 1e7, fixed(0.0)), Side::Host);
        assert_eq!(s.choose(one, "[map]", 1e7, fixed(0.0)), Side::Device);
    }

    #[test]
    fn a_later_faster_run_on_the_evaluator_counts() {
        let mut s = Sites::default();
        // Both probes on the evaluator slowed (a loaded machine): the
        // device looks faster.
        measure(&mut s, 1, 6e6, [4.9, 6.9, 4.8, 6.0]);
        assert_eq!(s.choose(1, "[scan]", 6e6, fixed(0.0)), Side::Device);
        s.ran_on_device(1, 6e6, ms(8.6));
        assert_eq!(s.choose(1, "[scan]", 6e6, fixed(0.0)), Side::Host);
        // Its runs kept on the evaluator are timed: a fast one counts, and
        // a re-probe as fast as the device's first no longer moves it.
        s.ran_on_host(1, 6e6, ms(2.4));
        runs_until_reprobe(&mut s, 1);
        s.ran_on_device(1, 6e6, ms(3.9));
        assert_eq!(s.choose(1, "[scan]", 6e6, fixed(0.0)), Side::Host);
    }

    #[test]
    fn the_faster_of_equal_runs_is_kept() {
        let a = Sample {
            work: 1.0,
            secs: 2.0,
        };
        let b = Sample {
            work: 1.0,
            secs: 3.0,
        };
        assert_eq!(Sample::merge(Some(a), b), a);
        assert_eq!(Sample::merge(Some(b), a), a);
        let c = Sample {
            work: 5.0,
            secs: 9.0,
        };
        assert_eq!(Sample::merge(Some(a), c), c);
    }
}
