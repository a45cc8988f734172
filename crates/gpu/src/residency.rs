//! Residency: which arrays are in the device's memory between regions.
//! Two kinds: host arrays already copied there (`Resident`, a cache by the
//! host array's identity), and arrays a region computed that no host copy
//! exists of yet (`OnGpu`, held by the `Value::Device` the evaluator
//! binds, copied to the host only when the host reads it).

use super::Gpu;
use super::cl::{Cl, DevBuf};
use super::stats::Stats;
use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Instant;
use urchin_prim::PrimType;
use urchin_runtime::value::{Array, DeviceArray, DeviceData};
use urchin_runtime::with_array;

/// Arrays already on the device, by the identity of the host array (which
/// the entry holds, so that it is neither freed nor written in place
/// while cached). On a device with its own memory, the arrays something
/// else still holds (a REPL binding, a benchmark's inputs) stay between
/// evaluations: those are immutable, and calling a function on them again
/// finds them on the device instead of copying them again.
#[derive(Default)]
pub struct Resident {
    bufs: HashMap<Identity, (Array, Arc<DevBuf>)>,
    bytes: usize,
}

/// The most bytes kept resident between regions.
const RESIDENT_BYTES: usize = 1 << 30;

/// A host array's data pointer, shape and strides (a transposed view
/// shares its array's pointer), and element type.
type Identity = (usize, Vec<usize>, Vec<isize>, PrimType);

fn identity(a: &Array) -> Identity {
    with_array!(a, x => (x.as_ptr() as usize, x.shape().to_vec(), x.strides().to_vec(), a.elem()))
}

impl Resident {
    pub fn clear(&mut self) {
        self.bufs.clear();
        self.bytes = 0;
    }

    /// Drops the arrays only the cache holds: nothing can name them again.
    /// (Where the buffer holds its host array too, on a device that uses
    /// the host's memory, nothing is ever dropped: clear instead. An array
    /// and a view of it both cached hold each other; the size limit
    /// bounds them.)
    pub fn prune(&mut self) {
        self.bufs
            .retain(|_, (a, _)| with_array!(a, x => !x.is_unique()));
        self.bytes = self.bufs.values().map(|(_, b)| b.bytes).sum();
    }

    /// How many arrays are kept, and their bytes.
    pub fn size(&self) -> (usize, usize) {
        (self.bufs.len(), self.bytes)
    }

    pub fn get(&self, a: &Array) -> Option<Arc<DevBuf>> {
        self.bufs.get(&identity(a)).map(|(_, b)| b.clone())
    }

    /// `b` copied to the host as an array like `like`; the copy is known
    /// to be on the device already, should the host send it back.
    pub fn download(
        &mut self,
        cl: &Cl,
        b: &Arc<DevBuf>,
        like: Array,
        stats: &mut Stats,
    ) -> Result<Array, String> {
        let a = cl.download(b, like, stats)?;
        self.insert(&a, b.clone());
        Ok(a)
    }

    pub fn insert(&mut self, a: &Array, b: Arc<DevBuf>) {
        if self.bytes + b.bytes > RESIDENT_BYTES {
            self.prune();
        }
        if self.bytes + b.bytes > RESIDENT_BYTES {
            self.clear();
        }
        self.bytes += b.bytes;
        self.bufs.insert(identity(a), (a.clone(), b));
    }
}

/// An array a region computed, in the device's memory only: the data of
/// a [`Value::Device`](urchin_runtime::value::Value::Device). The `Gpu`
/// counts those alive and not copied to the host yet, for `:device`.
pub struct OnGpu {
    pub buf: Arc<DevBuf>,
    pub gpu: Weak<Gpu>,
    /// The region that computed it (`sites::key`), which the copy to the
    /// host is charged to.
    site: u64,
    /// Copied to the host (and so counted with the host's arrays).
    fetched: AtomicBool,
}

impl OnGpu {
    /// `buf`, an array of `elem`s of `shape` that region `site` of `gpu`
    /// computed, as a value.
    pub fn value(
        gpu: &Weak<Gpu>,
        site: u64,
        buf: Arc<DevBuf>,
        elem: PrimType,
        shape: Vec<usize>,
    ) -> DeviceArray {
        if let Some(g) = gpu.upgrade() {
            g.held.fetch_add(1, Ordering::Relaxed);
            g.held_bytes.fetch_add(buf.bytes, Ordering::Relaxed);
        }
        let data = OnGpu {
            buf,
            gpu: gpu.clone(),
            site,
            fetched: AtomicBool::new(false),
        };
        DeviceArray::new(elem, shape, Arc::new(data))
    }

    /// The buffer of `d` if `gpu` computed it (another device's array is
    /// copied through the host).
    pub fn of<'d>(d: &'d DeviceArray, gpu: &Weak<Gpu>) -> Option<&'d Arc<DevBuf>> {
        let o = d.data().as_any().downcast_ref::<OnGpu>()?;
        Weak::ptr_eq(&o.gpu, gpu).then_some(&o.buf)
    }
}

impl DeviceData for OnGpu {
    fn fetch(&self, like: Array) -> Result<Array, String> {
        let gpu = self.gpu.upgrade().ok_or("the device was closed")?;
        let mut g = gpu.lock();
        let g = &mut *g;
        let t = Instant::now();
        let a = g.resident.download(&g.cl, &self.buf, like, &mut g.stats)?;
        // Where the evaluator reads what a region computed, running the
        // region on the device costs the copy too.
        g.sites.copied_back(self.site, t.elapsed());
        if !self.fetched.swap(true, Ordering::Relaxed) {
            gpu.let_go(self.buf.bytes);
        }
        Ok(a)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Drop for OnGpu {
    fn drop(&mut self) {
        if !*self.fetched.get_mut()
            && let Some(g) = self.gpu.upgrade()
        {
            g.let_go(self.buf.bytes);
        }
    }
}

impl Gpu {
    /// An array computed here is no longer held only here.
    fn let_go(&self, bytes: usize) {
        self.held.fetch_sub(1, Ordering::Relaxed);
        self.held_bytes.fetch_sub(bytes, Ordering::Relaxed);
    }
}
