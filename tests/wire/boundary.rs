//! Handles and the boundary (SPEC §1, A3.1, A3.2): NULL arguments, length overflows, out-parameters
//! left alone on failure, `free(NULL)`, capacities, and a handle shared by threads.

use std::ptr;

use loopcompact::ffi::*;

use super::support::*;

#[test]
fn handles_and_boundary() {
    let mut c = Cases::default();
    let wire = doc(&format!("[{HELLO}]"));
    let bad = doc("[]");
    // parse: out is required (pointer check first, A3.1).
    c.status(
        "parse NULL out",
        unsafe { lc_compaction_input_parse(wire.as_ptr(), wire.len(), ptr::null_mut()) },
        NULL_ARGUMENT,
    );
    c.status(
        "parse NULL out, invalid input",
        unsafe { lc_compaction_input_parse(bad.as_ptr(), bad.len(), ptr::null_mut()) },
        NULL_ARGUMENT,
    );
    c.status(
        "parse NULL out, (NULL, 5)",
        unsafe { lc_compaction_input_parse(ptr::null(), 5, ptr::null_mut()) },
        NULL_ARGUMENT,
    );
    // out untouched on failure.
    let sentinel = std::ptr::NonNull::<lc_compaction_input>::dangling().as_ptr();
    let mut out = sentinel;
    c.status("parse invalid", unsafe { lc_compaction_input_parse(bad.as_ptr(), bad.len(), &mut out) }, TRANSCRIPT);
    c.truth("out untouched on failure", out == sentinel);
    c.status("parse (NULL, 5)", unsafe { lc_compaction_input_parse(ptr::null(), 5, &mut out) }, NULL_ARGUMENT);
    c.truth("out untouched on NULL argument", out == sentinel);
    let huge = isize::MAX as usize + 1;
    c.status(
        "parse length overflow",
        unsafe { lc_compaction_input_parse(wire.as_ptr(), huge, &mut out) },
        LENGTH_OVERFLOW,
    );
    c.truth("out untouched on length overflow", out == sentinel);
    c.status(
        "parse usize::MAX",
        unsafe { lc_compaction_input_parse(wire.as_ptr(), usize::MAX, &mut out) },
        LENGTH_OVERFLOW,
    );
    c.status("parse NULL, huge", unsafe { lc_compaction_input_parse(ptr::null(), huge, &mut out) }, NULL_ARGUMENT);
    // validate.
    c.status("validate (NULL, 0)", unsafe { lc_compaction_input_validate(ptr::null(), 0) }, WIRE);
    c.status("validate (NULL, 5)", unsafe { lc_compaction_input_validate(ptr::null(), 5) }, NULL_ARGUMENT);
    c.status("validate length overflow", unsafe { lc_compaction_input_validate(wire.as_ptr(), huge) }, LENGTH_OVERFLOW);
    c.status("validate (NULL, huge)", unsafe { lc_compaction_input_validate(ptr::null(), huge) }, NULL_ARGUMENT);
    let mut out2 = ptr::null_mut();
    c.status("parse (NULL, 0)", unsafe { lc_compaction_input_parse(ptr::null(), 0, &mut out2) }, WIRE);
    c.truth("no handle for (NULL, 0)", out2.is_null());
    // free(NULL) is a no-op.
    unsafe { lc_compaction_input_free(ptr::null_mut()) };
    // encode_within boundary.
    let h = parse(&wire);
    let mut len = 7usize;
    c.status(
        "encode NULL handle",
        unsafe { lc_compaction_input_encode_within(ptr::null(), u64::MAX, ptr::null_mut(), 0, &mut len) },
        NULL_ARGUMENT,
    );
    c.status(
        "encode NULL out_len",
        unsafe { lc_compaction_input_encode_within(h.as_ptr(), u64::MAX, ptr::null_mut(), 0, ptr::null_mut()) },
        NULL_ARGUMENT,
    );
    c.status(
        "encode NULL buf, cap 5",
        unsafe { lc_compaction_input_encode_within(h.as_ptr(), u64::MAX, ptr::null_mut(), 5, &mut len) },
        NULL_ARGUMENT,
    );
    c.truth("out_len untouched on NULL argument", len == 7);
    c.status(
        "encode max 0, cap 0",
        unsafe { lc_compaction_input_encode_within(h.as_ptr(), 0, ptr::null_mut(), 0, &mut len) },
        TOO_LARGE,
    );
    c.truth("out_len untouched on too_large", len == 7);
    c.status(
        "encode size query",
        unsafe { lc_compaction_input_encode_within(h.as_ptr(), u64::MAX, ptr::null_mut(), 0, &mut len) },
        BUFFER_TOO_SMALL,
    );
    c.truth("size query sets out_len", len == wire.len());
    let mut buf = vec![0xAAu8; wire.len() - 1];
    let mut len = 0usize;
    c.status(
        "encode cap len - 1",
        unsafe { lc_compaction_input_encode_within(h.as_ptr(), u64::MAX, buf.as_mut_ptr(), buf.len(), &mut len) },
        BUFFER_TOO_SMALL,
    );
    c.truth("cap len - 1: nothing written, out_len set", len == wire.len() && buf.iter().all(|&b| b == 0xAA));
    let mut buf = vec![0u8; wire.len()];
    c.status(
        "encode exact cap",
        unsafe { lc_compaction_input_encode_within(h.as_ptr(), u64::MAX, buf.as_mut_ptr(), buf.len(), &mut len) },
        OK,
    );
    c.truth("exact cap bytes", buf == wire && len == wire.len());
    // A3.2: a capacity is never used to build a slice, so any value is accepted.
    let mut buf = vec![0u8; wire.len()];
    c.status(
        "encode huge cap",
        unsafe { lc_compaction_input_encode_within(h.as_ptr(), u64::MAX, buf.as_mut_ptr(), usize::MAX, &mut len) },
        OK,
    );
    c.truth("huge cap bytes", buf == wire);
    // output_validate boundary.
    let reply = Top::output().bytes();
    let mut sbuf = vec![0u8; reply.len()];
    let mut slen = 9usize;
    let ov = |h: *const lc_compaction_input, p: *const u8, n: usize, b: *mut u8, cap: usize, l: *mut usize| unsafe {
        lc_compaction_output_validate(h, p, n, 1, u64::MAX, b, cap, l)
    };
    c.status(
        "output NULL handle",
        ov(ptr::null(), reply.as_ptr(), reply.len(), sbuf.as_mut_ptr(), sbuf.len(), &mut slen),
        NULL_ARGUMENT,
    );
    c.status(
        "output (NULL, 5)",
        ov(h.as_ptr(), ptr::null(), 5, sbuf.as_mut_ptr(), sbuf.len(), &mut slen),
        NULL_ARGUMENT,
    );
    c.status(
        "output NULL summary_len",
        ov(h.as_ptr(), reply.as_ptr(), reply.len(), sbuf.as_mut_ptr(), sbuf.len(), ptr::null_mut()),
        NULL_ARGUMENT,
    );
    c.status(
        "output NULL buf, cap 5",
        ov(h.as_ptr(), reply.as_ptr(), reply.len(), ptr::null_mut(), 5, &mut slen),
        NULL_ARGUMENT,
    );
    c.status(
        "output length overflow",
        ov(h.as_ptr(), reply.as_ptr(), huge, sbuf.as_mut_ptr(), sbuf.len(), &mut slen),
        LENGTH_OVERFLOW,
    );
    c.status(
        "output NULL handle + length overflow",
        ov(ptr::null(), reply.as_ptr(), huge, sbuf.as_mut_ptr(), sbuf.len(), &mut slen),
        NULL_ARGUMENT,
    );
    c.status(
        "output NULL summary_len + length overflow",
        ov(h.as_ptr(), reply.as_ptr(), huge, sbuf.as_mut_ptr(), sbuf.len(), ptr::null_mut()),
        NULL_ARGUMENT,
    );
    c.truth("summary_len untouched on boundary errors", slen == 9);
    c.status(
        "output huge cap",
        ov(h.as_ptr(), reply.as_ptr(), reply.len(), sbuf.as_mut_ptr(), usize::MAX, &mut slen),
        OK,
    );
    c.truth("output huge cap bytes", slen == SUMMARY.len() && &sbuf[..slen] == SUMMARY.as_bytes());
    c.finish();
}

#[test]
fn a_handle_is_shared_by_threads() {
    let m1 = tool_msg("t1", &"A".repeat(300));
    let m2 = tool_msg("t2", &"B".repeat(300));
    let wire = doc(&format!("[{HELLO},{m1},{m2}]"));
    let h = parse(&wire);
    let limit = wire.len() as u64 - 1;
    let reply = Top::output().bytes();
    let wrong = Top::output().set("basis", &basis("4", &s(UUID))).bytes();
    let expected = (
        h.encode(u64::MAX),
        h.encode(limit),
        h.encode(10),
        h.output(&reply, 1, u64::MAX),
        h.output(&wrong, 1, u64::MAX),
    );
    assert!(expected.0.is_ok() && expected.1.is_ok() && expected.3.is_ok());
    assert_eq!(expected.2, Err(TOO_LARGE));
    assert_eq!(expected.4, Err(IDENTITY));
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..8)
            .map(|_| {
                let (h, reply, wrong) = (&h, &reply, &wrong);
                // Borrowed, not owned: the main thread frees it.
                scope.spawn(move || {
                    let mut results = Vec::new();
                    for _ in 0..50 {
                        results.push((
                            h.encode(u64::MAX),
                            h.encode(limit),
                            h.encode(10),
                            h.output(reply, 1, u64::MAX),
                            h.output(wrong, 1, u64::MAX),
                        ));
                    }
                    results
                })
            })
            .collect();
        for w in workers {
            for r in w.join().expect("worker panicked") {
                assert_eq!(r, expected);
            }
        }
    });
}
