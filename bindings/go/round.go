package loopcompact

// The round's calls (SPEC §15): the summariser's bare reply, the head it is sent, the transcript
// that replaces the history and the check of one a host rebuilt itself. Compact (compact.go) runs
// a whole round over them.

/*
#include "loopcompact.h"
*/
import "C"

import (
	"math"
	"strconv"
	"unsafe"
)

// SmallestSummaryLen is the length of the smallest summary SPEC §4 accepts (114 bytes,
// LC_SMALLEST_SUMMARY_LEN): a reply byte limit below it can never be met (SPEC R15.2).
const SmallestSummaryLen = C.LC_SMALLEST_SUMMARY_LEN

// Stop is how the provider's call ended (SPEC R15.4, LC_STOP_*). The zero value is StopUnknown.
type Stop int32

// Stops, taken from the #defines of include/loopcompact.h.
const (
	// StopUnknown: the provider did not say (LC_STOP_UNKNOWN).
	StopUnknown Stop = C.LC_STOP_UNKNOWN
	// StopEnd: the model ended its reply itself (LC_STOP_END): OpenAI finish_reason "stop",
	// Anthropic stop_reason "end_turn", Gemini finishReason "STOP".
	StopEnd Stop = C.LC_STOP_END
	// StopLength: the provider cut the reply at its output limit (LC_STOP_LENGTH): OpenAI
	// "length", Anthropic "max_tokens", Gemini "MAX_TOKENS".
	StopLength Stop = C.LC_STOP_LENGTH
)

// String is "end", "length", "unknown", or "Stop(N)" for a value that is not a Stop constant.
func (s Stop) String() string {
	switch s {
	case StopUnknown:
		return "unknown"
	case StopEnd:
		return "end"
	case StopLength:
		return "length"
	}
	return "Stop(" + strconv.Itoa(int(s)) + ")"
}

// valid reports a Stop constant (the library refuses other values with StatusInvalidArgument).
func (s Stop) valid() bool { return s == StopUnknown || s == StopEnd || s == StopLength }

// Cleanup is a set of the cleanups of a bare reply (SPEC R15.5, LC_REPLY_*): what ValidateReply
// may remove, and in Error.Removed and Attempt.Removed what it did remove.
type Cleanup uint32

// Cleanups, taken from the #defines of include/loopcompact.h.
const (
	// ReplyTrim: White_Space at both ends (LC_REPLY_TRIM).
	ReplyTrim Cleanup = C.LC_REPLY_TRIM
	// ReplyUnfence: one Markdown code fence that is the whole text (LC_REPLY_UNFENCE).
	ReplyUnfence Cleanup = C.LC_REPLY_UNFENCE
)

// String is "trim", "unfence", "trim|unfence", or "" for none.
func (c Cleanup) String() string {
	var b []byte
	for _, f := range []struct {
		bit  Cleanup
		name string
	}{{ReplyTrim, "trim"}, {ReplyUnfence, "unfence"}} {
		if c&f.bit != 0 {
			if len(b) > 0 {
				b = append(b, '|')
			}
			b = append(b, f.name...)
		}
	}
	if rest := c &^ (ReplyTrim | ReplyUnfence); rest != 0 {
		if len(b) > 0 {
			b = append(b, '|')
		}
		b = strconv.AppendUint(append(b, "0x"...), uint64(rest), 16)
	}
	return string(b)
}

// ReplyOptions say how ValidateReply checks a reply (SPEC R15.1).
type ReplyOptions struct {
	// OutputTokens is the output usage the provider reported for the call (0: none reported,
	// which is StatusSummaryTokenUsage).
	OutputTokens uint64
	// Stop is how the call ended; a reply stopped by length that is not a valid summary is
	// StatusReplyTruncated (ClassRetry), whose retry message asks for a shorter summary.
	Stop Stop
	// MaxReplyBytes is the byte limit of the reply as it arrived, before cleanup. Below
	// SmallestSummaryLen (0 included) no reply can meet it: StatusReplyByteLimitUnreachable
	// (ClassHost).
	MaxReplyBytes uint64
	// Trim removes White_Space at both ends; Unfence one Markdown code fence around the whole
	// text. Nothing else is ever removed.
	Trim, Unfence bool
}

// flags is the LC_REPLY_* argument.
func (o ReplyOptions) flags() C.uint32_t {
	var f Cleanup
	if o.Trim {
		f |= ReplyTrim
	}
	if o.Unfence {
		f |= ReplyUnfence
	}
	return C.uint32_t(f)
}

// stringArg borrows s for one C call, as bytesArg does a slice (a string holds no Go pointers).
func stringArg(s string) (*C.uint8_t, C.size_t) {
	if len(s) == 0 {
		return nil, 0
	}
	return (*C.uint8_t)(unsafe.Pointer(unsafe.StringData(s))), C.size_t(len(s))
}

// ValidateReply checks the summariser's reply as it arrived, the bare XML text the instructions
// ask for with no JSON envelope (SPEC R15.1–R15.7, lc_compaction_reply_validate), and returns the
// summary: the reply without what cleanup removed, the exact text of the replacement user
// message.
//
// The summary is a string, not a []byte: it is validated UTF-8 text, the content of a chat
// message (a string in every Go provider SDK) and the argument of BuildReplacement, and a string
// cannot be changed after it was validated. It is built on the buffer the library wrote, without a
// further copy.
//
// A failure is an *Error diagnosed by lc_compaction_reply_diagnose: StatusReplyByteLimitUnreachable,
// StatusSummaryByteLimit, StatusSummaryTokenUsage, StatusSummaryTokenLimit, StatusSummaryWire
// (bytes that are not UTF-8), StatusSummaryXML…, StatusReplyTruncated, or StatusInvalidArgument
// for a Stop that is not a Stop constant. Offsets, lines and columns count bytes of text as it
// arrived; a failure of the text itself has Location "summary"; Removed, RemovedBefore and
// RemovedAfter say what cleanup removed first.
func (in *Input) ValidateReply(text []byte, opts ReplyOptions) (string, error) {
	h, err := in.acquire()
	if err != nil {
		return "", err
	}
	defer in.release()
	// The plain call first (one pass, no diagnosis); the diagnosis is paid for only on a failure.
	summary, _, rc := replyDiagnose(h, text, opts, false)
	if rc == C.LC_OK {
		return summary, nil
	}
	return "", diagnosed(rc, func(d *C.lc_diagnostic) C.lc_status {
		// No buffer: the two-call pattern is checked only once the reply is valid (R15.6), so a
		// failing reply gives the same status without one.
		var n C.size_t
		tp, tn := bytesArg(text)
		return C.lc_compaction_reply_diagnose(h, tp, tn, C.uint64_t(opts.OutputTokens), C.int32_t(opts.Stop),
			C.uint64_t(opts.MaxReplyBytes), opts.flags(), nil, 0, &n, d)
	})
}

// replyDiagnose checks text once: with withDiagnosis, by lc_compaction_reply_diagnose (the
// diagnosis is returned on LC_OK too, for what cleanup removed), else by
// lc_compaction_reply_validate (no diagnosis). The summary is written into a buffer of len(text)
// bytes, which is always enough (R15.6); a second call with the size asked for only guards against
// a misbehaving library.
func replyDiagnose(h *C.lc_compaction_input, text []byte, opts ReplyOptions, withDiagnosis bool) (string, *C.lc_diagnostic, C.lc_status) {
	tp, tn := bytesArg(text)
	buf := make([]byte, len(text))
	var d *C.lc_diagnostic
	if withDiagnosis {
		d = newDiagnostic()
	}
	var n C.size_t
	for try := 0; ; try++ {
		bp, bc := bytesArg(buf)
		var rc C.lc_status
		if withDiagnosis {
			rc = C.lc_compaction_reply_diagnose(h, tp, tn, C.uint64_t(opts.OutputTokens), C.int32_t(opts.Stop),
				C.uint64_t(opts.MaxReplyBytes), opts.flags(), bp, bc, &n, d)
		} else {
			rc = C.lc_compaction_reply_validate(h, tp, tn, C.uint64_t(opts.OutputTokens), C.int32_t(opts.Stop),
				C.uint64_t(opts.MaxReplyBytes), opts.flags(), bp, bc, &n)
		}
		switch {
		case rc == C.LC_OK:
			if n == 0 {
				return "", d, rc
			}
			// buf is this call's own and never written again: the string may share it.
			return unsafe.String(&buf[0], int(n)), d, rc
		case rc == C.LC_ERR_BUFFER_TOO_SMALL && try < 2:
			buf = make([]byte, int(n))
		default:
			if withDiagnosis && (Status(rc).boundary() || d.status != rc) {
				d = nil // the library did not get as far as a diagnosis
			}
			return "", d, rc
		}
	}
}

// EncodeHeadWithin returns what the summariser is sent for a cut (SPEC R15.8,
// lc_compaction_input_encode_head_within): the input with messages [0, cut) as its transcript, in
// canonical bytes (its identity and max_summary_tokens unchanged), fitted under maxBytes as
// EncodeWithin fits a whole input (old tool results stubbed, oldest first). Errors:
// StatusInvalidArgument (a cut above the message count), StatusReplacementEmptyHead (no message
// or only the leading system messages come before the cut), StatusInputTooLarge.
func (in *Input) EncodeHeadWithin(cut, maxBytes uint64) ([]byte, error) {
	h, err := in.acquire()
	if err != nil {
		return nil, err
	}
	defer in.release()
	out, rc := encoded(outputGuess(in.size, maxBytes), func(p *C.uint8_t, c C.size_t, n *C.size_t) C.lc_status {
		return C.lc_compaction_input_encode_head_within(h, C.uint64_t(cut), C.uint64_t(maxBytes), p, c, n)
	})
	return out, check(rc)
}

// BuildReplacement returns the transcript that replaces the history once summary was accepted
// (SPEC R15.9, lc_replacement_build): a JSON array of wire messages in canonical bytes, the
// leading system messages, one user message whose first block is a text block holding summary,
// then messages [cut, n) unchanged. When message cut is a user message, its blocks follow the
// summary block in that same message, so that two user messages never meet.
//
// Errors, in this order (SPEC R15.10): StatusInvalidArgument (a cut above the message count),
// StatusReplacementEmptyHead, a pairing status (diagnosed as by CheckPairing) or StatusCutUnsafe,
// StatusReplacementSummary (a summary that does not validate, with the grammar's diagnosis:
// offsets into summary).
func (in *Input) BuildReplacement(cut uint64, summary string) ([]byte, error) {
	h, err := in.acquire()
	if err != nil {
		return nil, err
	}
	defer in.release()
	sp, sn := stringArg(summary)
	// The replacement is at most the kept messages and the summary, escaped (up to six bytes per
	// character of the summary's markup, E7.6).
	out, rc := encoded(outputGuess(in.size+6*len(summary), math.MaxUint64), func(p *C.uint8_t, c C.size_t, n *C.size_t) C.lc_status {
		return C.lc_replacement_build(h, C.uint64_t(cut), sp, sn, p, c, n)
	})
	if rc == C.LC_OK {
		return out, nil
	}
	if rc == C.LC_REPLACEMENT_SUMMARY {
		return nil, summaryRefused(summary)
	}
	return nil, diagnosed(rc, pairingDiagnosis(h))
}

// summaryRefused is StatusReplacementSummary with where the summary fails SPEC §4, from
// lc_summary_xml_diagnose (its offsets count bytes of the summary, Location "summary").
func summaryRefused(summary string) *Error {
	e := newError(StatusReplacementSummary, nil)
	d := newDiagnostic()
	sp, sn := stringArg(summary)
	if C.lc_summary_xml_diagnose(sp, sn, d) != C.LC_OK {
		var x Error
		x.setDiagnosis(d)
		e.Section, e.Offset, e.Line, e.Column = x.Section, x.Offset, x.Line, x.Column
		e.Rule, e.Expected, e.Location = x.Rule, x.Expected, "summary"
	}
	return e
}

// VerifyReplacement checks a transcript the host rebuilt itself (a JSON array of wire messages,
// any key order, whitespace and spelling) against the rule of BuildReplacement for this cut (SPEC
// R15.11, lc_replacement_verify): the leading system messages and the kept tail are the
// original's, equal in canonical encoding (thinking blocks, signatures and provider state
// included); the summary message is one user message whose first block is a text block holding a
// valid summary; no user message follows it.
//
// It returns nil or the first failure: the cut's own (as for BuildReplacement),
// StatusReplacementWire, StatusReplacementPrefixChanged, StatusReplacementSummary,
// StatusReplacementAdjacentUser, StatusReplacementTailChanged, with Location the first differing
// message and block of rebuilt ("transcript[2].blocks[0]"), never their bytes.
func (in *Input) VerifyReplacement(cut uint64, rebuilt []byte) error {
	h, err := in.acquire()
	if err != nil {
		return err
	}
	defer in.release()
	p, n := bytesArg(rebuilt)
	return diagnosed(C.lc_replacement_verify(h, C.uint64_t(cut), p, n, nil), func(d *C.lc_diagnostic) C.lc_status {
		return C.lc_replacement_verify(h, C.uint64_t(cut), p, n, d)
	})
}
