//! Peak heap of the main entry points, measured with a counting global allocator (used by
//! `scripts/bench`; the bounds are asserted in `tests/resource_bounds.rs` and
//! `tests/summary/no_alloc.rs`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use loopcompact::wire::CompactionInput;
use testkit::corpus::{summary as summary_corpus, wire as wire_corpus};

struct Counting;
static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static CALLS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = CURRENT.fetch_add(layout.size(), Relaxed) + layout.size();
        PEAK.fetch_max(now, Relaxed);
        CALLS.fetch_add(1, Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// (peak bytes above the level before `f`, allocation calls) while running `f`.
fn measure<T>(f: impl FnOnce() -> T) -> (usize, usize, T) {
    let base = CURRENT.load(Relaxed);
    PEAK.store(base, Relaxed);
    let calls = CALLS.load(Relaxed);
    let value = f();
    (PEAK.load(Relaxed) - base, CALLS.load(Relaxed) - calls, value)
}

fn main() {
    let xml = summary_corpus::summary(1024 * 1024);
    let (peak, calls, _) = measure(|| loopcompact::summary::validate(&xml).unwrap());
    println!("summary_validate_1MB input={} peak={peak} allocations={calls}", xml.len());
    let wire = wire_corpus::transcript_wire(1 << 20);
    let (peak, calls, _) = measure(|| CompactionInput::validate(&wire).unwrap());
    println!("input_validate_1MB input={} peak={peak} allocations={calls}", wire.len());
    let (peak, calls, handle) = measure(|| CompactionInput::parse(&wire).unwrap());
    println!("input_parse_1MB input={} peak={peak} allocations={calls}", wire.len());
    let reply = wire_corpus::reply_4k();
    let (peak, calls, _) = measure(|| handle.validate_output(&reply, 1, u64::MAX).unwrap().len());
    println!("output_validate_4KB input={} peak={peak} allocations={calls}", reply.len());
}
