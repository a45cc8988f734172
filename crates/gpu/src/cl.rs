//! The OpenCL runtime, through `opencl3` (which loads `libOpenCL.so.1` at
//! run time, so urchin builds and runs where no OpenCL library is
//! installed): the device list, the chosen device's context and queue,
//! buffers, building programs with the two caches, and launches.
//!
//! Everything here returns `Result<_, String>`: any failure (no library, a
//! build error, an out-of-memory) becomes the reason the caller shows when
//! it falls back to the evaluator.

use super::select::{DeviceInfo, Kind};
use super::stats::Stats;
use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::{
    CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU, Device,
};
use opencl3::kernel::Kernel;
use opencl3::memory::{
    Buffer, CL_MAP_READ, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_WRITE, CL_MEM_USE_HOST_PTR, ClMem,
};
use opencl3::platform::get_platforms;
use opencl3::program::Program;
use opencl3::types::CL_BLOCKING;
use std::collections::HashMap;
use std::ffi::c_void;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;
use urchin_prim::{PrimType, Scalar};
use urchin_runtime::value::Array;
use urchin_runtime::with_array;

fn err(what: &str) -> impl Fn(opencl3::error_codes::ClError) -> String + '_ {
    move |e| format!("{what}: {e}")
}

/// Every device of every platform, with the handles to open one.
pub fn list_devices() -> Result<Vec<(DeviceInfo, Device)>, String> {
    if !cl3::is_opencl_runtime_available() {
        return Err("no OpenCL library (libOpenCL.so.1) found".into());
    }
    let platforms = get_platforms().map_err(err("listing OpenCL platforms"))?;
    let mut out = Vec::new();
    for (p, plat) in platforms.iter().enumerate() {
        let pname = plat.name().unwrap_or_default();
        // A platform without devices answers with an error: skip it.
        let ids = plat.get_devices(CL_DEVICE_TYPE_ALL).unwrap_or_default();
        for (i, id) in ids.into_iter().enumerate() {
            let d = Device::new(id);
            let ty = d.dev_type().unwrap_or(0);
            let kind = if ty & CL_DEVICE_TYPE_GPU != 0 {
                Kind::Gpu
            } else if ty & CL_DEVICE_TYPE_ACCELERATOR != 0 {
                Kind::Accelerator
            } else if ty & CL_DEVICE_TYPE_CPU != 0 {
                Kind::Cpu
            } else {
                Kind::Other
            };
            let ext = d.extensions().unwrap_or_default();
            out.push((
                DeviceInfo {
                    platform: p,
                    index: i,
                    platform_name: pname.clone(),
                    name: d.name().unwrap_or_default().trim().to_string(),
                    kind,
                    compute_units: d.max_compute_units().unwrap_or(1),
                    global_mem: d.global_mem_size().unwrap_or(0),
                    fp64: ext.contains("cl_khr_fp64"),
                },
                d,
            ));
        }
    }
    Ok(out)
}

/// A buffer on the device. On a device that shares the host's memory, the
/// buffer is the host array itself (`CL_MEM_USE_HOST_PTR`), kept alive and
/// unshared-for-writing by the clone held here.
pub struct DevBuf {
    pub buf: Buffer<u8>,
    pub bytes: usize,
    host: Option<Array>,
}

/// A kernel argument.
pub enum Arg<'a> {
    Buf(&'a DevBuf),
    /// A scalar, as the bytes of its OpenCL type.
    Bytes(Vec<u8>),
    /// `__local` memory of this many bytes.
    Local(usize),
}

pub fn i64_arg(x: i64) -> Arg<'static> {
    Arg::Bytes(x.to_ne_bytes().to_vec())
}

pub struct Cl {
    pub info: DeviceInfo,
    pub extensions: String,
    pub max_group: usize,
    /// Bytes of local memory per work group.
    pub local_mem: usize,
    /// The host's memory is the device's (a CPU driver): buffers wrap host
    /// arrays instead of copying them.
    pub unified: bool,
    /// What identifies the compiler for the disk cache.
    build_id: String,
    device: Device,
    context: Context,
    queue: CommandQueue,
    programs: HashMap<String, Arc<Program>>,
    kernels: HashMap<(usize, String), Kernel>,
}

/// The options every program is built with: no fast-math, so results stay
/// within rounding of the evaluator's.
const BUILD_OPTIONS: &str = "";

impl Cl {
    /// Opens `device`; with `copy`, arrays are copied to it as to a GPU
    /// even where it could use the host's memory.
    pub fn open(info: DeviceInfo, device: Device, copy: bool) -> Result<Cl, String> {
        let context = Context::from_device(&device).map_err(err("creating an OpenCL context"))?;
        #[allow(deprecated)]
        let queue =
            CommandQueue::create_default(&context, 0).map_err(err("creating a command queue"))?;
        let extensions = device.extensions().unwrap_or_default();
        let unified =
            !copy && (info.kind == Kind::Cpu || device.host_unified_memory().unwrap_or(false));
        let build_id = format!(
            "{} | {} | {} | {}",
            info.platform_name,
            info.name,
            device.driver_version().unwrap_or_default(),
            device.version().unwrap_or_default()
        );
        Ok(Cl {
            max_group: device.max_work_group_size().unwrap_or(64).max(1),
            // OpenCL's least for a full profile.
            local_mem: device.local_mem_size().unwrap_or(16 << 10) as usize,
            info,
            extensions,
            unified,
            build_id,
            device,
            context,
            queue,
            programs: HashMap::new(),
            kernels: HashMap::new(),
        })
    }

    /// What identifies the device and its compiler (driver and OpenCL
    /// versions): the key of everything cached about it on disk.
    pub fn build_id(&self) -> &str {
        &self.build_id
    }

    pub fn has(&self, ext: &str) -> bool {
        self.extensions.split_whitespace().any(|e| e == ext)
    }

    // ----- programs and the kernel caches -----

    /// The program for `src`: from memory (keyed by the text), else from the
    /// disk cache of binaries, else built (and stored on disk).
    pub fn program(&mut self, src: &str, stats: &mut Stats) -> Result<Arc<Program>, String> {
        if let Some(p) = self.programs.get(src) {
            stats.cache_hits += 1;
            return Ok(p.clone());
        }
        let t = Instant::now();
        let path = disk_path(&self.build_id, src);
        let from_disk = path.as_ref().and_then(|p| self.load_binary(p, src));
        let prog = match from_disk {
            Some(p) => {
                stats.disk_hits += 1;
                p
            }
            None => {
                let mut p =
                    Program::create_from_source(&self.context, src).map_err(err("OpenCL C"))?;
                if let Err(e) = p.build(&[self.device.id()], BUILD_OPTIONS) {
                    let log = p.get_build_log(self.device.id()).unwrap_or_default();
                    return Err(format!(
                        "building a kernel failed ({e}): {}",
                        log.lines().take(6).collect::<Vec<_>>().join(" / ")
                    ));
                }
                stats.compiled += 1;
                if let Some(path) = &path {
                    self.store_binary(path, src, &p);
                }
                p
            }
        };
        stats.build_time += t.elapsed();
        let prog = Arc::new(prog);
        self.programs.insert(src.to_string(), prog.clone());
        Ok(prog)
    }

    fn load_binary(&self, path: &PathBuf, src: &str) -> Option<Program> {
        let data = std::fs::read(path).ok()?;
        let (header, binary) = split_entry(&data)?;
        if header != entry_header(&self.build_id, src).as_bytes() {
            return None;
        }
        let mut p = unsafe {
            Program::create_from_binary(&self.context, &[self.device.id()], &[binary]).ok()?
        };
        p.build(&[self.device.id()], BUILD_OPTIONS).ok()?;
        Some(p)
    }

    fn store_binary(&self, path: &PathBuf, src: &str, p: &Program) {
        let Some(binary) = p.get_binaries().ok().and_then(|b| b.into_iter().next()) else {
            return;
        };
        if binary.is_empty() {
            return;
        }
        let header = entry_header(&self.build_id, src);
        let mut data = (header.len() as u64).to_le_bytes().to_vec();
        data.extend_from_slice(header.as_bytes());
        data.extend_from_slice(&binary);
        // Written to a temporary name first, so that a concurrent reader
        // never sees half a file; a cache that cannot be written is only
        // slower.
        if let Some(dir) = path.parent()
            && std::fs::create_dir_all(dir).is_ok()
        {
            let tmp = path.with_extension(format!("tmp{}", std::process::id()));
            if std::fs::write(&tmp, &data).is_ok() {
                let _ = std::fs::rename(&tmp, path);
            }
        }
    }

    /// The kernel `name` of `prog` (kernels are cached: creating one is not
    /// free, and a kernel keeps its arguments between launches).
    fn kernel(&mut self, prog: &Arc<Program>, name: &str) -> Result<&Kernel, String> {
        let key = (Arc::as_ptr(prog) as usize, name.to_string());
        if !self.kernels.contains_key(&key) {
            let k = Kernel::create(prog, name).map_err(err("creating a kernel"))?;
            self.kernels.insert(key.clone(), k);
        }
        Ok(&self.kernels[&key])
    }

    // ----- buffers -----

    /// An uninitialised buffer of `bytes` (at least one byte: OpenCL
    /// refuses empty buffers).
    pub fn alloc(&self, bytes: usize) -> Result<DevBuf, String> {
        let buf = unsafe {
            Buffer::<u8>::create(
                &self.context,
                CL_MEM_READ_WRITE,
                bytes.max(1),
                std::ptr::null_mut(),
            )
        }
        .map_err(err("allocating device memory"))?;
        Ok(DevBuf {
            buf,
            bytes,
            host: None,
        })
    }

    /// An output buffer for an array of this element type and shape: on a
    /// unified device, a fresh host array the device writes into; on
    /// another, device memory alone (a host array made and zeroed for
    /// nothing cost the gradient of a sum of squares over 10^7 elements
    /// most of its 7.9 ms on an H200).
    pub fn output(&self, elem: PrimType, shape: Vec<usize>) -> Result<DevBuf, String> {
        let bytes = shape.iter().product::<usize>() * elem.bytes();
        if !self.unified || bytes == 0 {
            return self.alloc(bytes);
        }
        self.wrap(
            Array::filled(shape, Scalar::zero(elem)),
            CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
        )
    }

    /// The array's elements on the device (row-major, contiguous).
    pub fn upload(&self, a: &Array, stats: &mut Stats) -> Result<DevBuf, String> {
        let a = contiguous(a);
        if self.unified && a.size() > 0 {
            return self.wrap(a, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR);
        }
        stats.bytes_to_device += a.bytes() as u64;
        if a.size() == 0 {
            return self.alloc(0);
        }
        self.wrap(a, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR)
            .map(|mut b| {
                b.host = None;
                b
            })
    }

    fn wrap(&self, host: Array, flags: u64) -> Result<DevBuf, String> {
        let bytes = host.bytes();
        let ptr = with_array!(&host, x => x.as_ptr() as *mut c_void);
        let buf = unsafe { Buffer::<u8>::create(&self.context, flags, bytes, ptr) }
            .map_err(err("allocating device memory"))?;
        Ok(DevBuf {
            buf,
            bytes,
            host: Some(host),
        })
    }

    /// Copies `src` into `dst` (a consumed destination of `scatter` or
    /// `hist`, which the kernel then updates).
    pub fn copy_into(&self, src: &DevBuf, dst: &mut DevBuf) -> Result<(), String> {
        let n = src.bytes.min(dst.bytes);
        if n > 0 {
            unsafe {
                self.queue
                    .enqueue_copy_buffer(&src.buf, &mut dst.buf, 0, 0, n, &[])
                    .map_err(err("copying on the device"))?;
            }
        }
        Ok(())
    }

    /// Fills a buffer with copies of `pattern`.
    pub fn fill(&self, b: &mut DevBuf, pattern: &[u8]) -> Result<(), String> {
        if b.bytes == 0 {
            return Ok(());
        }
        unsafe {
            self.queue
                .enqueue_fill_buffer(&mut b.buf, pattern, 0, b.bytes, &[])
                .map_err(err("filling device memory"))?;
        }
        Ok(())
    }

    /// The contents of `b` as an array of the given type and shape.
    pub fn download(&self, b: &DevBuf, like: Array, stats: &mut Stats) -> Result<Array, String> {
        if let Some(host) = &b.host
            && host.elem() == like.elem()
            && host.size() == like.size()
        {
            // Mapping synchronises the host's view of a `USE_HOST_PTR`
            // buffer; on a CPU driver it copies nothing.
            let mut p: *mut c_void = std::ptr::null_mut();
            unsafe {
                let ev = self
                    .queue
                    .enqueue_map_buffer(&b.buf, CL_BLOCKING, CL_MAP_READ, 0, b.bytes, &mut p, &[])
                    .map_err(err("reading device memory"))?;
                ev.wait().map_err(err("reading device memory"))?;
                let hp = with_array!(host, x => x.as_ptr().cast::<u8>());
                if p as *const u8 != hp {
                    stats.bytes_from_device += b.bytes as u64;
                    std::ptr::copy_nonoverlapping(p as *const u8, hp as *mut u8, b.bytes);
                }
                self.queue
                    .enqueue_unmap_mem_object(b.buf.get(), p, &[])
                    .map_err(err("reading device memory"))?;
            }
            return Ok(reshape_like(host, &like));
        }
        let mut out = like;
        if out.size() > 0 {
            stats.bytes_from_device += b.bytes as u64;
            with_array!(&mut out, x => {
                let s = x.as_slice_mut().expect("a fresh array is contiguous");
                let bytes = unsafe {
                    std::slice::from_raw_parts_mut(s.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(s))
                };
                unsafe {
                    self.queue
                        .enqueue_read_buffer(&b.buf, CL_BLOCKING, 0, bytes, &[])
                        .map_err(err("reading device memory"))?;
                }
            });
        }
        Ok(out)
    }

    // ----- launches -----

    /// Enqueues kernel `name` of `prog` over `global` work items in groups
    /// of `local`. The queue is in order: the next launch, and any read
    /// (a blocking map), waits for it; not waiting here saves a round
    /// trip to the driver per launch.
    pub fn launch(
        &mut self,
        prog: &Arc<Program>,
        name: &str,
        args: &[Arg],
        global: usize,
        local: usize,
        stats: &mut Stats,
    ) -> Result<(), String> {
        if global == 0 {
            return Ok(());
        }
        let k = self.kernel(prog, name)?.get();
        for (i, a) in args.iter().enumerate() {
            let r = unsafe {
                match a {
                    Arg::Buf(b) => opencl3::kernel::set_kernel_arg(
                        k,
                        i as u32,
                        std::mem::size_of::<*mut c_void>(),
                        &b.buf.get() as *const _ as *const c_void,
                    ),
                    Arg::Bytes(v) => opencl3::kernel::set_kernel_arg(
                        k,
                        i as u32,
                        v.len(),
                        v.as_ptr() as *const c_void,
                    ),
                    Arg::Local(n) => {
                        opencl3::kernel::set_kernel_arg(k, i as u32, (*n).max(1), std::ptr::null())
                    }
                }
            };
            r.map_err(|e| format!("setting argument {i} of {name}: {e}"))?;
        }
        let g = global.div_ceil(local) * local;
        unsafe {
            self.queue
                .enqueue_nd_range_kernel(k, 1, std::ptr::null(), &g, &local, &[])
                .map_err(err("launching a kernel"))?;
        }
        stats.launches += 1;
        Ok(())
    }
}

/// The array with its elements in row-major order in one block.
fn contiguous(a: &Array) -> Array {
    with_array!(a, x => {
        if x.is_standard_layout() {
            a.clone()
        } else {
            urchin_runtime::value::Element::wrap_array(x.as_standard_layout().into_owned().into_shared())
        }
    })
}

fn reshape_like(host: &Array, like: &Array) -> Array {
    with_array!(host, x => {
        let y = x.clone().into_shape_with_order(like.shape().to_vec())
            .expect("a device buffer holds as many elements as its array");
        urchin_runtime::value::Element::wrap_array(y)
    })
}

// ----- the disk cache -----

/// urchin's cache: `$URCHIN_CACHE_DIR`, else `$XDG_CACHE_HOME/urchin`,
/// else `~/.cache/urchin`. Compiled binaries live in `kernels/` under it,
/// measured thresholds in `thresholds/`.
pub fn cache_root() -> Option<PathBuf> {
    std::env::var_os("URCHIN_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("urchin")))
        .or_else(|| home::home_dir().map(|h| h.join(".cache").join("urchin")))
}

/// Where compiled binaries live.
pub fn cache_dir() -> Option<PathBuf> {
    Some(cache_root()?.join("kernels"))
}

fn entry_header(build_id: &str, src: &str) -> String {
    format!("{build_id}\n{src}")
}

/// A binary's file, named by a hash of the compiler and the source; the
/// file repeats both, and a load checks them, so a hash collision is only
/// a miss.
fn disk_path(build_id: &str, src: &str) -> Option<PathBuf> {
    Some(cache_dir()?.join(format!(
        "{:016x}.bin",
        fnv1a(entry_header(build_id, src).as_bytes())
    )))
}

fn split_entry(data: &[u8]) -> Option<(&[u8], &[u8])> {
    let n = u64::from_le_bytes(data.get(..8)?.try_into().ok()?) as usize;
    let header = data.get(8..8usize.checked_add(n)?)?;
    Some((header, &data[8 + n..]))
}

/// FNV-1a: a hash that is the same in every build (unlike `DefaultHasher`).
pub fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf29ce484222325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disk_entries_round_trip_and_reject_garbage() {
        let header = entry_header("pocl | cpu", "kernel void k() {}");
        let mut data = (header.len() as u64).to_le_bytes().to_vec();
        data.extend_from_slice(header.as_bytes());
        data.extend_from_slice(b"BINARY");
        let (h, b) = split_entry(&data).unwrap();
        assert_eq!(h, header.as_bytes());
        assert_eq!(b, b"BINARY");
        assert!(split_entry(&data[..5]).is_none());
        let mut bad = u64::MAX.to_le_bytes().to_vec();
        bad.extend_from_slice(b"x");
        assert!(split_entry(&bad).is_none());
        assert_ne!(fnv1a(b"a"), fnv1a(b"b"));
    }
}
