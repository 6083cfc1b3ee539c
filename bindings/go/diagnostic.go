package loopcompact

// Diagnostics (SPEC §13): the lc_diagnostic a failure fills in *Error, summary sections, the
// retry message for the summariser and the summariser's instructions.

/*
#include <stdlib.h>
#include "loopcompact.h"
*/
import "C"

import (
	"strconv"
	"sync"
	"unsafe"
)

// OffsetUnknown is Error.Offset when the failure has no position (LC_OFFSET_UNKNOWN).
const OffsetUnknown uint64 = C.LC_OFFSET_UNKNOWN

// LimitUnknown is Error.Limit and Error.Actual when the failure is not a byte or token limit
// (LC_LIMIT_UNKNOWN).
const LimitUnknown uint64 = C.LC_LIMIT_UNKNOWN

// Section is a section of a summary (SPEC §4, LC_SECTION_*): where a diagnosis points, and the
// argument of SummarySectionText.
type Section int32

// Summary sections, taken from the #defines of include/loopcompact.h.
const (
	SectionNone        Section = C.LC_SECTION_NONE
	SectionGoal        Section = C.LC_SECTION_GOAL
	SectionConstraints Section = C.LC_SECTION_CONSTRAINTS
	SectionDecisions   Section = C.LC_SECTION_DECISIONS
	SectionState       Section = C.LC_SECTION_STATE
	SectionOpenItems   Section = C.LC_SECTION_OPEN_ITEMS
	SectionRoot        Section = C.LC_SECTION_ROOT // conversation_summary, outside any section
)

// Sections are the five sections in the order a summary holds them; SummarySections returns
// their spans in this order.
var Sections = [5]Section{SectionGoal, SectionConstraints, SectionDecisions, SectionState, SectionOpenItems}

// String is the element name ("goal", …, "conversation_summary" for SectionRoot), "none" for
// SectionNone.
func (s Section) String() string {
	switch s {
	case SectionNone:
		return "none"
	case SectionGoal:
		return "goal"
	case SectionConstraints:
		return "constraints"
	case SectionDecisions:
		return "decisions"
	case SectionState:
		return "state"
	case SectionOpenItems:
		return "open_items"
	case SectionRoot:
		return "conversation_summary"
	}
	return "Section(" + strconv.Itoa(int(s)) + ")"
}

// newDiagnostic is a zeroed lc_diagnostic with struct_size set (C13.2). It lives on the Go heap
// (it is passed to C); the library writes only numbers, pointers to its static strings and the
// location array into it, never a Go pointer, so cgo's pointer rules hold.
func newDiagnostic() *C.lc_diagnostic {
	return &C.lc_diagnostic{struct_size: C.size_t(unsafe.Sizeof(C.lc_diagnostic{}))}
}

// setDiagnosis copies the fields of d into e.
func (e *Error) setDiagnosis(d *C.lc_diagnostic) {
	e.Section = Section(d.section)
	e.Offset = uint64(d.offset)
	e.Line = uint64(d.line)
	e.Column = uint64(d.column)
	e.Limit = uint64(d.limit)
	e.Actual = uint64(d.actual)
	e.Rule = C.GoString(d.rule) // static strings; "" for NULL
	e.Expected = C.GoString(d.expected)
	// NUL-terminated within LC_LOCATION_CAP bytes; read no further even if it were not.
	loc := C.GoBytes(unsafe.Pointer(&d.location[0]), C.LC_LOCATION_CAP)
	for i, c := range loc {
		if c == 0 {
			loc = loc[:i]
			break
		}
	}
	e.Location = string(loc)
	e.Removed = Cleanup(d.removed)
	e.RemovedBefore = uint64(d.removed_before)
	e.RemovedAfter = uint64(d.removed_after)
	if d.status == C.lc_status(e.Status) {
		e.class = Class(d.status_class)
	}
}

// RetryMessage is a short message to the summariser about this failure (SPEC C13.5,
// lc_retry_message): what was wrong, where (line, column, section), what was expected, the rule,
// and the rules it broke, built by the library from static text and the numbers of e; for a
// failure whose Class is not ClassRetry, that no retry is useful. Only Status, Class(), Section,
// Line, Column, Limit, Actual, Rule and Expected are read; a Rule or Expected that is not one of the
// library's own strings is left out. Send it with the next attempt when errors.Is(err,
// ClassRetry).
func (e *Error) RetryMessage() string {
	d := newDiagnostic()
	d.status = C.lc_status(e.Status)
	d.status_class = C.int32_t(e.Class())
	d.section = C.int32_t(e.Section)
	d.offset = C.uint64_t(e.Offset)
	d.line = C.uint64_t(e.Line)
	d.column = C.uint64_t(e.Column)
	d.limit = C.uint64_t(e.Limit)
	d.actual = C.uint64_t(e.Actual)
	// C copies of the two strings (the library compares them with its own by content).
	rule, expected := C.CString(e.Rule), C.CString(e.Expected)
	defer C.free(unsafe.Pointer(rule))
	defer C.free(unsafe.Pointer(expected))
	d.rule, d.expected = rule, expected
	return retryMessage(d)
}

// retryMessage is lc_retry_message of d, "" if the library refuses it (it never does for a
// diagnosis it filled).
func retryMessage(d *C.lc_diagnostic) string {
	// Two-call pattern; the message depends only on d, so the second call fits.
	var n C.size_t
	rc := C.lc_retry_message(d, nil, 0, &n)
	for try := 0; rc == C.LC_ERR_BUFFER_TOO_SMALL && try < 3; try++ {
		buf := make([]byte, int(n))
		p, c := bytesArg(buf)
		rc = C.lc_retry_message(d, p, c, &n)
		if rc == C.LC_OK {
			return string(buf[:int(n)])
		}
	}
	return ""
}

// SummaryInstructions is the system prompt for the summariser (SPEC C13.6,
// lc_summary_instructions): the exact element structure, the escaping rules, what is not
// allowed, and one complete example summary (its last line) that ValidateSummaryXML accepts.
func SummaryInstructions() string { return summaryInstructions() }

var summaryInstructions = sync.OnceValue(func() string { return C.GoString(C.lc_summary_instructions()) })

// summaryDiagnosis is the diagnose function of diagnosed for a summary.
func summaryDiagnosis(xml []byte) func(*C.lc_diagnostic) C.lc_status {
	return func(d *C.lc_diagnostic) C.lc_status {
		p, n := bytesArg(xml)
		return C.lc_summary_xml_diagnose(p, n, d)
	}
}

// Span is the byte range [Offset, Offset+Len) of a buffer (lc_span).
type Span struct {
	Offset int
	Len    int
}

// Of returns the bytes of b that s covers (b is the buffer the span was computed for).
func (s Span) Of(b []byte) []byte { return b[s.Offset : s.Offset+s.Len : s.Offset+s.Len] }

// SummarySections returns the byte span of each section's raw (escaped) content of a valid summary,
// in the order of Sections: goal first, open_items last (SPEC C13.7, lc_summary_sections). An empty
// or self-closing section has Len 0 at the position after its start tag. An invalid summary gives
// the *Error of ValidateSummaryXML, with its diagnosis.
func SummarySections(xml []byte) ([5]Span, error) {
	var out [5]C.lc_span
	p, n := bytesArg(xml)
	if rc := C.lc_summary_sections(p, n, &out[0]); rc != C.LC_OK {
		return [5]Span{}, diagnosed(rc, summaryDiagnosis(xml))
	}
	var spans [5]Span
	for i, s := range out {
		spans[i] = Span{Offset: int(s.offset), Len: int(s.len)}
	}
	return spans, nil
}

// SummarySectionText returns the text of one section (SectionGoal … SectionOpenItems) of a valid
// summary as encoding/xml delivers it: references resolved, CR LF and a lone raw CR as LF (SPEC
// C13.8, lc_summary_section_text). An empty section is "". StatusInvalidArgument for another
// Section; an invalid summary gives the *Error of ValidateSummaryXML, with its diagnosis.
func SummarySectionText(xml []byte, section Section) (string, error) {
	p, n := bytesArg(xml)
	// Most sections are short: one call with a small buffer, then one with the size asked for
	// (the text is never longer than the summary; the bound only guards against a misbehaving
	// library).
	buf := make([]byte, min(len(xml), 256))
	var out C.size_t
	for try := 0; ; try++ {
		bp, bc := bytesArg(buf)
		rc := C.lc_summary_section_text(p, n, C.int32_t(section), bp, bc, &out)
		switch {
		case rc == C.LC_OK:
			return string(buf[:int(out)]), nil
		case rc == C.LC_ERR_BUFFER_TOO_SMALL && try < 2:
			buf = make([]byte, int(out))
		default:
			return "", diagnosed(rc, summaryDiagnosis(xml))
		}
	}
}
