//! The C ABI of the stream (SPEC §17.3, T17.1–T17.4): handles, NULL rules, absolute offsets, a dead
//! stream staying dead, and the final verdict equal to `lc_summary_xml_diagnose` for every vector.

use core::ffi::CStr;
use std::ptr;

use loopcompact::Status;
use loopcompact::ffi::*;

use super::corpus::vector_documents;

fn blank() -> lc_diagnostic {
    // SAFETY: lc_diagnostic is plain data (integers, arrays, pointers): all zeros is a value.
    let mut d: lc_diagnostic = unsafe { std::mem::zeroed() };
    d.struct_size = size_of::<lc_diagnostic>();
    d
}

/// The fields a diagnosis is compared on.
fn fields(d: &lc_diagnostic) -> (i32, i32, u64, u64, u64, String, String) {
    // SAFETY: the library writes static NUL-terminated strings (or leaves NULL).
    let text = |p: *const core::ffi::c_char| {
        if p.is_null() { String::new() } else { unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned() }
    };
    (d.status, d.section, d.offset, d.line, d.column, text(d.rule), text(d.expected))
}

struct Stream(*mut lc_summary_stream);

impl Stream {
    fn new() -> Stream {
        let mut p = ptr::null_mut();
        // SAFETY: a valid out pointer.
        assert_eq!(unsafe { lc_summary_stream_new(&mut p) }, 0);
        assert!(!p.is_null());
        Stream(p)
    }
    fn feed(&self, chunk: &[u8]) -> i32 {
        // SAFETY: a live handle and buffer.
        unsafe { lc_summary_stream_feed(self.0, chunk.as_ptr(), chunk.len()) }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // SAFETY: a live handle, freed once.
        unsafe { lc_summary_stream_free(self.0) };
    }
}

#[test]
fn boundaries() {
    // SAFETY: NULL arguments are part of the contract.
    unsafe {
        assert_eq!(lc_summary_stream_new(ptr::null_mut()), Status::NullArgument.code());
        lc_summary_stream_free(ptr::null_mut());
        assert_eq!(lc_summary_stream_feed(ptr::null_mut(), ptr::null(), 0), Status::NullArgument.code());
        assert_eq!(lc_summary_stream_finish(ptr::null()), Status::NullArgument.code());
        assert_eq!(lc_summary_stream_dead_offset(ptr::null()), LC_OFFSET_UNKNOWN);
    }
    let s = Stream::new();
    // SAFETY: NULL with 0 is the empty chunk; NULL with a length is refused and feeds nothing.
    unsafe {
        assert_eq!(lc_summary_stream_feed(s.0, ptr::null(), 0), 0);
        assert_eq!(lc_summary_stream_feed(s.0, ptr::null(), 3), Status::NullArgument.code());
        let mut d = blank();
        assert_eq!(lc_summary_stream_feed_diagnose(s.0, ptr::null(), 3, &mut d), Status::NullArgument.code());
        assert_eq!(d.status, Status::NullArgument.code());
        // Nothing fed: the empty document's verdict.
        assert_eq!(lc_summary_stream_finish(s.0), Status::SummaryXmlRoot.code());
        let mut d = blank();
        assert_eq!(lc_summary_stream_finish_diagnose(s.0, &mut d), Status::SummaryXmlRoot.code());
        assert_eq!(fields(&d).5, "X4.20");
    }
}

#[test]
fn dies_with_absolute_offsets_and_stays_dead() {
    let s = Stream::new();
    assert_eq!(s.feed(b"<conversation_summary>\n<goal>a &am"), 0);
    // SAFETY: a live handle.
    assert_eq!(unsafe { lc_summary_stream_dead_offset(s.0) }, LC_OFFSET_UNKNOWN);
    assert_eq!(s.feed(b"p; b</goal>\n"), 0);
    let mut d = blank();
    // `<notes>`: the `n` at offset 47 (line 3, column 2) kills it; the diagnosis is at its `<`.
    // SAFETY: a live handle and buffer.
    let rc = unsafe { lc_summary_stream_feed_diagnose(s.0, b"<notes>".as_ptr(), 7, &mut d) };
    assert_eq!(rc, Status::SummaryXmlStructure.code());
    // SAFETY: a live handle.
    assert_eq!(unsafe { lc_summary_stream_dead_offset(s.0) }, 47);
    assert_eq!(fields(&d), (rc, 2, 46, 3, 1, "X4.18".into(), "<constraints>".into()));
    // Later chunks, even a valid-looking tail, give the same status.
    assert_eq!(s.feed(b"</notes><constraints/>"), rc);
    assert_eq!(s.feed(b""), rc);
}

#[test]
fn finish_is_the_whole_document_diagnosis_for_every_vector() {
    for (name, doc) in vector_documents() {
        for size in [1, 7, 64] {
            let s = Stream::new();
            for chunk in doc.chunks(size) {
                s.feed(chunk);
            }
            let (mut got, mut want) = (blank(), blank());
            // SAFETY: a live handle and buffer.
            let rc = unsafe { lc_summary_stream_finish_diagnose(s.0, &mut got) };
            // SAFETY: a live buffer.
            let whole = unsafe { lc_summary_xml_diagnose(doc.as_ptr(), doc.len(), &mut want) };
            assert_eq!(rc, whole, "{name}");
            // SAFETY: a live handle.
            assert_eq!(unsafe { lc_summary_stream_finish(s.0) }, whole, "{name}");
            assert_eq!(fields(&got), fields(&want), "{name} in chunks of {size}");
        }
    }
}
