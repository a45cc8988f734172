//! The `automap` fuzz target: see `urchin_fuzz::automap`.

// The memory limit counts what the whole process holds, as in `urchin`.
#[global_allocator]
static ALLOC: urchin_base::mem::Counting = urchin_base::mem::Counting;

fn main() {
    urchin_fuzz::init();
    afl::fuzz!(|data: &[u8]| urchin_fuzz::automap(data));
}
