package loopcompact

/*
#include "loopcompact.h"
*/
import "C"

import (
	"errors"
	"sync"
)

// Status is a loopcompact status code (lc_status, SPEC §3): StatusOK or a reason code. Values are
// stable forever. A Status is also an error value so that the constants below can be used as
// targets of errors.Is:
//
//	if errors.Is(err, loopcompact.StatusSummaryXMLSyntax) { ... }
//
// The functions of this package never return a bare Status; they return *Error.
type Status int32

// Status constants, taken from the #defines of include/loopcompact.h.
const (
	StatusOK             Status = C.LC_OK
	StatusNullArgument   Status = C.LC_ERR_NULL_ARGUMENT
	StatusBufferTooSmall Status = C.LC_ERR_BUFFER_TOO_SMALL
	StatusLengthOverflow Status = C.LC_ERR_LENGTH_OVERFLOW
	StatusPanic          Status = C.LC_ERR_PANIC

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
)

// Name is the constant's name, e.g. "LC_SUMMARY_XML_SYNTAX" ("LC_UNKNOWN_STATUS" for an unknown
// value), from the library's static table.
func (s Status) Name() string { return s.text().name }

// Reason is the reference's reason string, e.g. "xml_syntax" or "RearmBelow"; "" for StatusOK, the
// boundary errors and unknown values. Several statuses share a reason ("wire"): compare statuses.
func (s Status) Reason() string { return s.text().reason }

// Message is one human sentence describing the status. It never contains bytes of any input.
func (s Status) Message() string { return s.text().message }

// String returns Name.
func (s Status) String() string { return s.Name() }

// Error makes a Status usable as an errors.Is target; it returns Name, like String.
func (s Status) Error() string { return s.Name() }

// Error is the error returned by every function of this package for a status other than
// StatusOK. Its strings come from the library's static tables (lc_status_name, lc_status_reason,
// lc_status_message) and never contain input bytes.
//
// errors.Is(err, target) is true when target is a Status or an *Error with the same Status.
type Error struct {
	Status  Status
	Name    string // "LC_SUMMARY_XML_SYNTAX"
	Reason  string // "xml_syntax"; "" for boundary errors
	Message string // one sentence
}

func (e *Error) Error() string {
	if e.Reason == "" {
		return "loopcompact: " + e.Name + ": " + e.Message
	}
	return "loopcompact: " + e.Name + " (" + e.Reason + "): " + e.Message
}

// Is reports whether target is the same status: a Status value or an *Error.
func (e *Error) Is(target error) bool {
	switch t := target.(type) {
	case Status:
		return e.Status == t
	case *Error:
		return t != nil && e.Status == t.Status
	}
	return false
}

// ErrClosed is returned by the methods of an Input after Close (or on a nil *Input).
var ErrClosed = errors.New("loopcompact: input is closed")

type statusText struct{ name, reason, message string }

// statusTexts caches the three static strings of each status seen, so that building an *Error
// costs no cgo call after the first time.
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
	}
	statusTexts.Store(s, t)
	return t
}

// check turns a C status into nil (LC_OK) or an *Error.
func check(rc C.lc_status) error {
	if rc == C.LC_OK {
		return nil
	}
	s := Status(rc)
	t := s.text()
	return &Error{Status: s, Name: t.name, Reason: t.reason, Message: t.message}
}
