package loopcompact

/*
#include "loopcompact.h"
*/
import "C"

import (
	"errors"
	"strconv"
	"sync"
)

// Status is a loopcompact status code (lc_status, SPEC §3): StatusOK or a reason code. Values are
// stable forever. A Status is also an error value: the constants below are this package's
// per-status sentinels, the targets of errors.Is (the Class constants are the per-class ones):
//
//	if errors.Is(err, loopcompact.StatusSummaryXMLSyntax) { ... }
//
// The functions of this package never return a bare Status; they return *Error.
type Status int32

// Status constants, taken from the #defines of include/loopcompact.h.
const (
	StatusOK              Status = C.LC_OK
	StatusNullArgument    Status = C.LC_ERR_NULL_ARGUMENT
	StatusBufferTooSmall  Status = C.LC_ERR_BUFFER_TOO_SMALL
	StatusLengthOverflow  Status = C.LC_ERR_LENGTH_OVERFLOW
	StatusInvalidArgument Status = C.LC_ERR_INVALID_ARGUMENT
	StatusPanic           Status = C.LC_ERR_PANIC

	StatusInputWire               Status = C.LC_INPUT_WIRE
	StatusInputBasis              Status = C.LC_INPUT_BASIS
	StatusInputModel              Status = C.LC_INPUT_MODEL
	StatusInputRequestFingerprint Status = C.LC_INPUT_REQUEST_FINGERPRINT
	StatusInputTranscript         Status = C.LC_INPUT_TRANSCRIPT
	StatusInputMaxSummaryTokens   Status = C.LC_INPUT_MAX_SUMMARY_TOKENS
	StatusInputTooLarge           Status = C.LC_INPUT_TOO_LARGE

	StatusSummaryWire         Status = C.LC_SUMMARY_WIRE
	StatusSummaryIdentity     Status = C.LC_SUMMARY_IDENTITY
	StatusSummaryOutputShape  Status = C.LC_SUMMARY_OUTPUT_SHAPE
	StatusSummaryByteLimit    Status = C.LC_SUMMARY_BYTE_LIMIT
	StatusSummaryTokenUsage   Status = C.LC_SUMMARY_TOKEN_USAGE
	StatusSummaryTokenLimit   Status = C.LC_SUMMARY_TOKEN_LIMIT
	StatusSummaryXMLSyntax    Status = C.LC_SUMMARY_XML_SYNTAX
	StatusSummaryXMLRoot      Status = C.LC_SUMMARY_XML_ROOT
	StatusSummaryXMLStructure Status = C.LC_SUMMARY_XML_STRUCTURE
	StatusSummaryXMLContent   Status = C.LC_SUMMARY_XML_CONTENT
	StatusSummaryTooLarge     Status = C.LC_SUMMARY_TOO_LARGE

	StatusPolicyWire             Status = C.LC_POLICY_WIRE
	StatusPolicyCounterPolicy    Status = C.LC_POLICY_COUNTER_POLICY
	StatusPolicyCompactAt        Status = C.LC_POLICY_COMPACT_AT
	StatusPolicyRearmBelow       Status = C.LC_POLICY_REARM_BELOW
	StatusPolicyReservedOutput   Status = C.LC_POLICY_RESERVED_OUTPUT
	StatusPolicySafetyMargin     Status = C.LC_POLICY_SAFETY_MARGIN
	StatusPolicyMaxSummaryTokens Status = C.LC_POLICY_MAX_SUMMARY_TOKENS
	StatusPolicyCountTimeout     Status = C.LC_POLICY_COUNT_TIMEOUT
	StatusPolicyHustle           Status = C.LC_POLICY_HUSTLE

	StatusObservationWire           Status = C.LC_OBSERVATION_WIRE
	StatusObservationReservedOutput Status = C.LC_OBSERVATION_RESERVED_OUTPUT
	StatusObservationSafetyMargin   Status = C.LC_OBSERVATION_SAFETY_MARGIN
	StatusObservationCountTimeout   Status = C.LC_OBSERVATION_COUNT_TIMEOUT

	StatusContextWire                       Status = C.LC_CONTEXT_WIRE
	StatusContextConflictingPolicy          Status = C.LC_CONTEXT_CONFLICTING_POLICY
	StatusContextMissingCounter             Status = C.LC_CONTEXT_MISSING_COUNTER
	StatusContextMissingInferenceCapability Status = C.LC_CONTEXT_MISSING_INFERENCE_CAPABILITY
	StatusContextMissingPolicy              Status = C.LC_CONTEXT_MISSING_POLICY
	StatusContextInvalidCounter             Status = C.LC_CONTEXT_INVALID_COUNTER
	StatusContextInvalidInferenceCapability Status = C.LC_CONTEXT_INVALID_INFERENCE_CAPABILITY
	StatusContextIncompatibleCounter        Status = C.LC_CONTEXT_INCOMPATIBLE_COUNTER

	StatusLimitsUnknown      Status = C.LC_LIMITS_UNKNOWN
	StatusOccupancyZeroLimit Status = C.LC_OCCUPANCY_ZERO_LIMIT

	StatusFingerprintWire                   Status = C.LC_FINGERPRINT_WIRE
	StatusFingerprintSystemRevision         Status = C.LC_FINGERPRINT_SYSTEM_REVISION
	StatusFingerprintToolPolicyRevision     Status = C.LC_FINGERPRINT_TOOL_POLICY_REVISION
	StatusFingerprintRuntimeContextRevision Status = C.LC_FINGERPRINT_RUNTIME_CONTEXT_REVISION
	StatusFingerprintModel                  Status = C.LC_FINGERPRINT_MODEL
	StatusFingerprintBasis                  Status = C.LC_FINGERPRINT_BASIS
	StatusFingerprintCounterCapability      Status = C.LC_FINGERPRINT_COUNTER_CAPABILITY
	StatusFingerprintInferenceCapability    Status = C.LC_FINGERPRINT_INFERENCE_CAPABILITY
	StatusFingerprintEncoding               Status = C.LC_FINGERPRINT_ENCODING

	// Transcript safety (SPEC §14).
	StatusPairingUnansweredCall          Status = C.LC_PAIRING_UNANSWERED_CALL
	StatusPairingOrphanResult            Status = C.LC_PAIRING_ORPHAN_RESULT
	StatusPairingDuplicateID             Status = C.LC_PAIRING_DUPLICATE_ID
	StatusPairingDuplicateResult         Status = C.LC_PAIRING_DUPLICATE_RESULT
	StatusCutUnsafe                      Status = C.LC_CUT_UNSAFE
	StatusCompactionNoProgress           Status = C.LC_COMPACTION_NO_PROGRESS
	StatusCompactionThresholdUnreachable Status = C.LC_COMPACTION_THRESHOLD_UNREACHABLE

	// The round (SPEC §15): the bare reply, the head and the replacement.
	StatusReplyTruncated            Status = C.LC_REPLY_TRUNCATED
	StatusReplyByteLimitUnreachable Status = C.LC_REPLY_BYTE_LIMIT_UNREACHABLE
	StatusReplacementEmptyHead      Status = C.LC_REPLACEMENT_EMPTY_HEAD
	StatusReplacementSummary        Status = C.LC_REPLACEMENT_SUMMARY
	StatusReplacementWire           Status = C.LC_REPLACEMENT_WIRE
	StatusReplacementPrefixChanged  Status = C.LC_REPLACEMENT_PREFIX_CHANGED
	StatusReplacementTailChanged    Status = C.LC_REPLACEMENT_TAIL_CHANGED
	StatusReplacementAdjacentUser   Status = C.LC_REPLACEMENT_ADJACENT_USER

	// The converters (SPEC §16): the host's source list.
	StatusConvertWire  Status = C.LC_CONVERT_WIRE
	StatusConvertShape Status = C.LC_CONVERT_SHAPE
	StatusConvertLoss  Status = C.LC_CONVERT_LOSS
)

// Name is the constant's name, e.g. "LC_SUMMARY_XML_SYNTAX" ("LC_UNKNOWN_STATUS" for an unknown
// value), from the library's static table.
func (s Status) Name() string { return s.text().name }

// Reason is the reference's reason string, e.g. "xml_syntax" or "RearmBelow"; "" for StatusOK, the
// boundary errors and unknown values. Several statuses share a reason ("wire"): compare statuses.
func (s Status) Reason() string { return s.text().reason }

// Message is one human sentence describing the status. It never contains bytes of any input.
func (s Status) Message() string { return s.text().message }

// Class says what a host does next about the status (SPEC C13.3, lc_status_class): ClassHost for
// a value not in the status table.
func (s Status) Class() Class { return s.text().class }

// String returns Name.
func (s Status) String() string { return s.Name() }

// Error makes a Status usable as an errors.Is target; it returns Name, like String.
func (s Status) Error() string { return s.Name() }

// boundary reports the statuses of the call itself (SPEC §1: NULL, sizes, lengths, an argument
// out of range) and LC_ERR_PANIC: no _diagnose sibling says more about them.
func (s Status) boundary() bool {
	switch s {
	case StatusNullArgument, StatusBufferTooSmall, StatusLengthOverflow, StatusInvalidArgument, StatusPanic:
		return true
	}
	return false
}

// Class is a status class (SPEC C13.3): what a host does next about a status. A Class is also an
// error value, the per-class sentinel of errors.Is:
//
//	if errors.Is(err, loopcompact.ClassRetry) { // ask the summariser again, with e.RetryMessage()
type Class int32

// Status classes, taken from the #defines of include/loopcompact.h.
const (
	ClassOK      Class = C.LC_CLASS_OK      // StatusOK
	ClassRetry   Class = C.LC_CLASS_RETRY   // a new attempt by the summariser can fix it
	ClassDiscard Class = C.LC_CLASS_DISCARD // this result can never be used; retrying will not help
	ClassHost    Class = C.LC_CLASS_HOST    // the host's own document, policy, limit or call is wrong
	ClassBug     Class = C.LC_CLASS_BUG     // a bug in the library (StatusPanic)
)

// String is the constant's name in the header, e.g. "LC_CLASS_RETRY".
func (c Class) String() string {
	switch c {
	case ClassOK:
		return "LC_CLASS_OK"
	case ClassRetry:
		return "LC_CLASS_RETRY"
	case ClassDiscard:
		return "LC_CLASS_DISCARD"
	case ClassHost:
		return "LC_CLASS_HOST"
	case ClassBug:
		return "LC_CLASS_BUG"
	}
	return "Class(" + strconv.Itoa(int(c)) + ")"
}

// Error makes a Class usable as an errors.Is target; it returns String.
func (c Class) Error() string { return c.String() }

// Error is the error returned by every function of this package for a status other than
// StatusOK. Its strings come from the library's static tables and never contain input bytes.
//
// The diagnosis fields (SPEC C13.2) say where and what: the functions that validate a document
// fill them from the _diagnose sibling of the C function that failed (lc_summary_xml_diagnose, …,
// lc_transcript_pairing_check with a diagnostic), which runs only after a failure. A field that
// does not apply has its unknown value: Offset OffsetUnknown, Line and Column 0, Limit and Actual
// LimitUnknown, Section SectionNone, the strings "".
//
// errors.Is(err, target) is true when target is the same Status, an *Error with the same Status,
// or the status's Class; errors.As(err, &e) with e an *Error gives the fields.
type Error struct {
	Status  Status
	Name    string // "LC_SUMMARY_XML_SYNTAX"
	Reason  string // "xml_syntax"; "" for boundary errors
	Message string // one sentence

	Section  Section // the summary section holding the problem, or expected there
	Offset   uint64  // bytes into the checked buffer (a reply's summary: into the decoded text)
	Line     uint64  // 1-based line of Offset (lines end at LF)
	Column   uint64  // 1-based column of Offset, in Unicode scalar values
	Rule     string  // the SPEC rule, e.g. "X4.18"
	Expected string  // what the rule expected there, e.g. "<constraints>", "non-blank text"
	Location string  // path of layout names and indices, e.g. "transcript[3].blocks[0].type"
	Limit    uint64  // byte and token limits: the limit
	Actual   uint64  // byte and token limits: the measured value

	// What cleanup removed around a bare reply before it was checked (SPEC R15.7; ValidateReply
	// and Compact's attempts): the cleanups that removed something and the bytes they removed
	// before and after the text. Zero for every other check.
	Removed       Cleanup
	RemovedBefore uint64
	RemovedAfter  uint64

	// class is the diagnosis's class (lc_diagnostic.status_class), which may differ from the
	// status's (a byte limit no reply can meet is the host's, SPEC R15.2); ClassOK when unknown.
	class Class
}

func (e *Error) Error() string {
	b := make([]byte, 0, 160)
	b = append(b, "loopcompact: "...)
	b = append(b, e.Name...)
	if e.Reason != "" {
		b = append(b, " ("...)
		b = append(b, e.Reason...)
		b = append(b, ')')
	}
	b = append(b, ": "...)
	b = append(b, e.Message...)
	// The diagnosis, in brackets: every part is a number or a static string (SPEC C13.1).
	n := len(b)
	sep := func() {
		if len(b) == n {
			b = append(b, " ["...)
		} else {
			b = append(b, "; "...)
		}
	}
	if e.Location != "" {
		sep()
		b = append(b, "at "...)
		b = append(b, e.Location...)
	}
	if e.Line != 0 {
		sep()
		b = append(b, "line "...)
		b = strconv.AppendUint(b, e.Line, 10)
		b = append(b, ", column "...)
		b = strconv.AppendUint(b, e.Column, 10)
	}
	if e.Section != SectionNone {
		sep()
		b = append(b, "section "...)
		b = append(b, e.Section.String()...)
	}
	if e.Expected != "" {
		sep()
		b = append(b, "expected "...)
		b = append(b, e.Expected...)
	}
	if e.Limit != LimitUnknown && e.Actual != LimitUnknown {
		sep()
		b = append(b, "limit "...)
		b = strconv.AppendUint(b, e.Limit, 10)
		b = append(b, ", actual "...)
		b = strconv.AppendUint(b, e.Actual, 10)
	}
	if e.Rule != "" {
		sep()
		b = append(b, "rule "...)
		b = append(b, e.Rule...)
	}
	if e.Removed != 0 {
		sep()
		b = append(b, "removed "...)
		b = append(b, e.Removed.String()...)
		b = append(b, ": "...)
		b = strconv.AppendUint(b, e.RemovedBefore, 10)
		b = append(b, " bytes before, "...)
		b = strconv.AppendUint(b, e.RemovedAfter, 10)
		b = append(b, " after"...)
	}
	if len(b) != n {
		b = append(b, ']')
	}
	return string(b)
}

// Is reports whether target is the same status (a Status value or an *Error) or its class.
func (e *Error) Is(target error) bool {
	switch t := target.(type) {
	case Status:
		return e.Status == t
	case Class:
		return e.Class() == t
	case *Error:
		return t != nil && e.Status == t.Status
	}
	return false
}

// Class says what a host does next about the failure (SPEC C13.3): the class of the diagnosis,
// which is the status's except where the diagnosis knows better (a byte limit that no reply can
// meet is ClassHost, SPEC R15.2, although StatusSummaryByteLimit is ClassRetry).
func (e *Error) Class() Class {
	if e.class != ClassOK {
		return e.class
	}
	return e.Status.Class()
}

// ErrClosed is returned by the methods of an Input after Close (or on a nil *Input).
var ErrClosed = errors.New("loopcompact: input is closed")

type statusText struct {
	name, reason, message string
	class                 Class
}

// statusTexts caches the static strings and the class of each status seen, so that building an
// *Error costs no cgo call after the first time.
var statusTexts sync.Map // Status -> statusText

func (s Status) text() statusText {
	if t, ok := statusTexts.Load(s); ok {
		return t.(statusText)
	}
	c := C.lc_status(s)
	t := statusText{
		name:    C.GoString(C.lc_status_name(c)),
		reason:  C.GoString(C.lc_status_reason(c)),
		message: C.GoString(C.lc_status_message(c)),
		class:   Class(C.lc_status_class(c)),
	}
	statusTexts.Store(s, t)
	return t
}

// newError is the *Error of a failing status, with the diagnosis d when there is one.
func newError(s Status, d *C.lc_diagnostic) *Error {
	t := s.text()
	e := &Error{Status: s, Name: t.name, Reason: t.reason, Message: t.message,
		Offset: OffsetUnknown, Limit: LimitUnknown, Actual: LimitUnknown}
	if d != nil {
		e.setDiagnosis(d)
	}
	return e
}

// check turns a C status into nil (LC_OK) or an *Error without a diagnosis: for the functions
// that check numbers or a call, not a document.
func check(rc C.lc_status) error {
	if rc == C.LC_OK {
		return nil
	}
	return newError(Status(rc), nil)
}

// diagnosed turns a C status into nil (LC_OK) or an *Error whose diagnosis diagnose computes:
// diagnose calls the _diagnose sibling of the call that returned rc, which checks the same bytes
// again. The plain call comes first so that the path of a valid document stays what it was (no
// allocation, one pass); the second pass is paid only on a failure. The diagnosis is used only when
// the sibling returns the same status, as the SPEC promises (C13.4); the boundary statuses have
// none.
func diagnosed(rc C.lc_status, diagnose func(*C.lc_diagnostic) C.lc_status) error {
	if rc == C.LC_OK {
		return nil
	}
	s := Status(rc)
	if s.boundary() {
		return newError(s, nil)
	}
	d := newDiagnostic()
	if diagnose(d) != rc {
		return newError(s, nil)
	}
	return newError(s, d)
}
