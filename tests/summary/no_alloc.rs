//! The summary grammar (SPEC §4) validates without touching the heap: a counting global allocator
//! (the summary test binary's; it counts only on a thread that asks, so the other tests of the
//! binary are left alone) sees no allocation during `summary::validate` and
//! `lc_summary_xml_validate`, on valid summaries and on every kind of failure.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;

use loopcompact::summary::validate;

/// Counts the allocations made by a thread while its counting flag is on; everything else (other
/// test threads, the harness) is left alone.
struct CountingAllocator;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn note_allocation() {
    // `try_with`: the allocator can run while thread-locals are torn down.
    let counting = COUNTING.try_with(Cell::get).unwrap_or(false);
    if counting {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
    }
}

// SAFETY: every call is forwarded to `System` unchanged; the counting touches only
// const-initialised thread-locals without destructors, which never allocate.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_allocation();
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_allocation();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_allocation();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// The number of allocations `f` makes on this thread.
fn allocations_during(f: impl FnOnce()) -> usize {
    ALLOCATIONS.with(|n| n.set(0));
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.with(Cell::get)
}

#[test]
fn the_counter_sees_allocations() {
    // Without this, a broken counter would pass the real test.
    assert!(allocations_during(|| drop(black_box(vec![1u8; 64]))) >= 1);
}

#[test]
fn validation_does_not_allocate() {
    let small = testkit::corpus::summary::summary(4 * 1024);
    let large = testkit::corpus::summary::summary(1024 * 1024);
    assert!(validate(&small).is_ok() && validate(&large).is_ok());

    // Failures of every kind: each early return, the CDATA search, the end-of-input rules, and
    // inputs that are large in the dimensions the classifier cuts short.
    let attributes = (0..10_000).map(|i| format!(" a{i}=\"&amp;{i}\"")).collect::<String>();
    let failing: Vec<Vec<u8>> = vec![
        Vec::new(),
        b" ".to_vec(),
        b"<summary/>".to_vec(),
        b"<conversation_summary/>".to_vec(),
        b"<conversation_summary><goal>a\x00b</goal>".to_vec(),
        b"<conversation_summary><goal>&bogus;</goal>".to_vec(),
        b"<conversation_summary><goal>]]></goal>".to_vec(),
        b"<conversation_summary><goal>x</state>".to_vec(),
        b"<conversation_summary><goal> </goal><constraints/><decisions/><state>y</state><open_items/></conversation_summary>".to_vec(),
        b"<conversation_summary><goal>x".to_vec(),
        b"<!-- x --><conversation_summary/>".to_vec(),
        b"<?xml version=\"2.0\"?>".to_vec(),
        b"<!DOCTYPE x [<!-- y --> \"z\"]>".to_vec(),
        b"<conversation_summary><![CDATA[x]]>".to_vec(),
        [&large[..], b"<![CDATA[".as_slice()].concat(),
        format!("<conversation_summary><goal>{}", "<a>".repeat(100_000)).into_bytes(),
        format!("<conversation_summary{attributes}>").into_bytes(),
    ];

    let count = allocations_during(|| {
        for _ in 0..100 {
            black_box(validate(black_box(&small))).unwrap();
            // SAFETY: a live buffer of `small.len()` bytes.
            black_box(unsafe { loopcompact::ffi::lc_summary_xml_validate(small.as_ptr(), small.len()) });
        }
        for _ in 0..5 {
            black_box(validate(black_box(&large))).unwrap();
            // SAFETY: a live buffer of `large.len()` bytes.
            black_box(unsafe { loopcompact::ffi::lc_summary_xml_validate(large.as_ptr(), large.len()) });
        }
        for xml in &failing {
            black_box(validate(black_box(xml))).unwrap_err();
        }
    });
    assert_eq!(count, 0, "validation allocated {count} times");
}
