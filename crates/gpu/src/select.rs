//! Which device to use: the `--device` / `URCHIN_DEVICE` / `:device`
//! setting, and the choice among the devices the platforms offer. The
//! choice is a pure function of a device list, so that it is tested without
//! any OpenCL platform.

use std::fmt;

/// The user's setting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    /// The best device found, if any: a GPU over an accelerator over a CPU
    /// driver.
    Auto,
    /// Never offload.
    None,
    /// The first device whose name, platform name or `PLATFORM:DEVICE`
    /// index contains this text (case-insensitive).
    Named(String),
}

impl Choice {
    pub fn parse(s: &str) -> Choice {
        match s.trim().to_ascii_lowercase().as_str() {
            "" | "auto" => Choice::Auto,
            "none" | "off" | "cpu-evaluator" => Choice::None,
            _ => Choice::Named(s.trim().to_string()),
        }
    }
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Choice::Auto => write!(f, "auto"),
            Choice::None => write!(f, "none"),
            Choice::Named(n) => write!(f, "{n}"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Cpu,
    Accelerator,
    Gpu,
    Other,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Cpu => "CPU",
            Kind::Accelerator => "accelerator",
            Kind::Gpu => "GPU",
            Kind::Other => "other",
        })
    }
}

/// What the choice needs to know about a device.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    pub platform: usize,
    pub index: usize,
    pub platform_name: String,
    pub name: String,
    pub kind: Kind,
    pub compute_units: u32,
    pub global_mem: u64,
    pub fp64: bool,
}

impl DeviceInfo {
    /// `P:D`, the index a user can name a device by.
    pub fn id(&self) -> String {
        format!("{}:{}", self.platform, self.index)
    }

    fn rank(&self) -> (u8, u32, u64) {
        let kind = match self.kind {
            Kind::Gpu => 3,
            Kind::Accelerator => 2,
            Kind::Cpu => 1,
            Kind::Other => 0,
        };
        (kind, self.compute_units, self.global_mem)
    }
}

/// The device `choice` selects from `devices`, or why there is none.
pub fn pick<'a>(choice: &Choice, devices: &'a [DeviceInfo]) -> Result<&'a DeviceInfo, String> {
    match choice {
        Choice::None => Err("offload is off (--device none)".into()),
        Choice::Auto => devices
            .iter()
            // The first of equally ranked devices, as the platforms list them.
            .rev()
            .max_by_key(|d| d.rank())
            .ok_or_else(|| "no OpenCL device found".into()),
        Choice::Named(n) => {
            let needle = n.to_lowercase();
            devices
                .iter()
                .find(|d| d.id() == needle)
                .or_else(|| {
                    devices.iter().find(|d| {
                        d.name.to_lowercase().contains(&needle)
                            || d.platform_name.to_lowercase().contains(&needle)
                    })
                })
                .ok_or_else(|| {
                    let names: Vec<String> = devices
                        .iter()
                        .map(|d| format!("{} ({})", d.id(), d.name))
                        .collect();
                    if names.is_empty() {
                        format!("no OpenCL device matches `{n}`: no device found")
                    } else {
                        format!(
                            "no OpenCL device matches `{n}`; the devices are: {}",
                            names.join(", ")
                        )
                    }
                })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(p: usize, i: usize, plat: &str, name: &str, kind: Kind, cus: u32) -> DeviceInfo {
        DeviceInfo {
            platform: p,
            index: i,
            platform_name: plat.into(),
            name: name.into(),
            kind,
            compute_units: cus,
            global_mem: 1 << 30,
            fp64: true,
        }
    }

    fn fake() -> Vec<DeviceInfo> {
        vec![
            dev(
                0,
                0,
                "Portable Computing Language",
                "pthread-x86",
                Kind::Cpu,
                64,
            ),
            dev(1, 0, "NVIDIA CUDA", "NVIDIA H100", Kind::Gpu, 132),
            dev(2, 0, "Intel(R) OpenCL", "Intel Xeon", Kind::Cpu, 16),
        ]
    }

    #[test]
    fn auto_prefers_a_gpu_over_cpu_drivers() {
        let ds = fake();
        assert_eq!(pick(&Choice::Auto, &ds).unwrap().name, "NVIDIA H100");
        // Even when the CPU driver has more compute units and comes first.
        let ds = vec![
            dev(0, 0, "pocl", "cpu", Kind::Cpu, 500),
            dev(0, 1, "x", "small gpu", Kind::Gpu, 2),
        ];
        assert_eq!(pick(&Choice::Auto, &ds).unwrap().name, "small gpu");
    }

    #[test]
    fn auto_takes_the_larger_of_two_cpu_drivers_and_the_first_of_equals() {
        let ds = vec![
            dev(0, 0, "a", "first", Kind::Cpu, 2),
            dev(1, 0, "b", "second", Kind::Cpu, 2),
            dev(2, 0, "c", "third", Kind::Cpu, 1),
        ];
        assert_eq!(pick(&Choice::Auto, &ds).unwrap().name, "first");
    }

    #[test]
    fn names_match_devices_platforms_and_indices() {
        let ds = fake();
        assert_eq!(
            pick(&Choice::parse("pocl"), &ds).map(|d| d.id()),
            Err("no OpenCL device matches `pocl`; the devices are: 0:0 (pthread-x86), 1:0 (NVIDIA H100), 2:0 (Intel Xeon)".into())
        );
        assert_eq!(pick(&Choice::parse("portable"), &ds).unwrap().id(), "0:0");
        assert_eq!(pick(&Choice::parse("h100"), &ds).unwrap().id(), "1:0");
        assert_eq!(pick(&Choice::parse("2:0"), &ds).unwrap().name, "Intel Xeon");
    }

    #[test]
    fn none_and_empty_lists_give_reasons() {
        assert!(pick(&Choice::None, &fake()).is_err());
        assert_eq!(
            pick(&Choice::Auto, &[]).map(|d| d.id()),
            Err("no OpenCL device found".into())
        );
        assert_eq!(Choice::parse("AUTO"), Choice::Auto);
        assert_eq!(Choice::parse("none"), Choice::None);
    }
}
