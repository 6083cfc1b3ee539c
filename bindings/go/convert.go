package loopcompact

// The converters (SPEC §16): the message list a host holds in a provider's format, as the JSON
// the provider's API takes, in; the wire transcript out, with the source index of each wire
// message, the cuts that fall on source boundaries, the loss report and the compaction input
// around it. One implementation, the library's lc_transcript_convert: this file only assembles the
// source document the format's C entry reads and reads the results.

/*
#include "loopcompact.h"
*/
import "C"

import (
	"bytes"
	"encoding/json"
	"errors"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"
)

// Format is a source format of the converters (SPEC §16.1, LC_FORMAT_*).
type Format int32

// Formats, taken from the #defines of include/loopcompact.h.
const (
	// FormatOpenAIChat: OpenAI Chat Completions, the messages array (§16.2).
	FormatOpenAIChat Format = C.LC_FORMAT_OPENAI_CHAT
	// FormatOpenAIResponses: OpenAI Responses, {"input": [...] or "text", "instructions": ...}
	// (§16.3).
	FormatOpenAIResponses Format = C.LC_FORMAT_OPENAI_RESPONSES
	// FormatAnthropic: Anthropic Messages, {"system": ..., "messages": [...]} (§16.4).
	FormatAnthropic Format = C.LC_FORMAT_ANTHROPIC
	// FormatGemini: Google Gemini, {"contents": [...], "system_instruction": ...} (§16.5).
	FormatGemini Format = C.LC_FORMAT_GEMINI
	// FormatAISDK: the Vercel AI SDK's ModelMessage[] as JSON (§16.7).
	FormatAISDK Format = C.LC_FORMAT_AI_SDK
	// FormatLangChain: LangChain messages as messages_to_dict, dumpd or model_dump write them
	// (§16.6).
	FormatLangChain Format = C.LC_FORMAT_LANGCHAIN
)

// String is the format's name in the SPEC ("openai_chat", "anthropic", ...), or "Format(N)".
func (f Format) String() string {
	switch f {
	case FormatOpenAIChat:
		return "openai_chat"
	case FormatOpenAIResponses:
		return "openai_responses"
	case FormatAnthropic:
		return "anthropic"
	case FormatGemini:
		return "gemini"
	case FormatAISDK:
		return "ai_sdk"
	case FormatLangChain:
		return "langchain"
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// LossCode is what a conversion could not carry into the wire (SPEC G16.8, LC_LOSS_*); its Name
// is the stable name of the SPEC's table.
type LossCode int32

// Loss codes, taken from the #defines of include/loopcompact.h.
const (
	LossDroppedCacheControl           LossCode = C.LC_LOSS_DROPPED_CACHE_CONTROL
	LossDroppedCitations              LossCode = C.LC_LOSS_DROPPED_CITATIONS
	LossDroppedLogprobs               LossCode = C.LC_LOSS_DROPPED_LOGPROBS
	LossDroppedName                   LossCode = C.LC_LOSS_DROPPED_NAME
	LossDroppedMediaOptions           LossCode = C.LC_LOSS_DROPPED_MEDIA_OPTIONS
	LossDroppedProviderOptions        LossCode = C.LC_LOSS_DROPPED_PROVIDER_OPTIONS
	LossDroppedUnknownField           LossCode = C.LC_LOSS_DROPPED_UNKNOWN_FIELD
	LossDocumentNotInline             LossCode = C.LC_LOSS_DOCUMENT_NOT_INLINE
	LossAudioReferenceUnresolvable    LossCode = C.LC_LOSS_AUDIO_REFERENCE_UNRESOLVABLE
	LossArgumentsUnparseable          LossCode = C.LC_LOSS_ARGUMENTS_UNPARSEABLE
	LossDuplicateArgumentKey          LossCode = C.LC_LOSS_DUPLICATE_ARGUMENT_KEY
	LossSynthesizedToolID             LossCode = C.LC_LOSS_SYNTHESIZED_TOOL_ID
	LossServerToolUnrepresentable     LossCode = C.LC_LOSS_SERVER_TOOL_UNREPRESENTABLE
	LossCompactionItemUnrepresentable LossCode = C.LC_LOSS_COMPACTION_ITEM_UNREPRESENTABLE
	LossItemReferenceUnresolvable     LossCode = C.LC_LOSS_ITEM_REFERENCE_UNRESOLVABLE
	LossToolApprovalDropped           LossCode = C.LC_LOSS_TOOL_APPROVAL_DROPPED
	LossUnknownContentDropped         LossCode = C.LC_LOSS_UNKNOWN_CONTENT_DROPPED
)

// Name is the code's stable name, e.g. "dropped_cache_control"; "" for a value that is not one
// (lc_loss_name).
func (c LossCode) Name() string { return C.GoString(C.lc_loss_name(C.int32_t(c))) }

// String is Name, or "LossCode(N)" for a value that is not one.
func (c LossCode) String() string {
	if n := c.Name(); n != "" {
		return n
	}
	return "LossCode(" + strconv.Itoa(int(c)) + ")"
}

// SourceSystem is a source index (Conversion.SourceIndex, Loss.SourceIndex) that is no element
// of the source list: the system parameter (Anthropic system, Responses instructions, Gemini
// system_instruction). The header spells it LC_SOURCE_SYSTEM (UINT64_MAX); Go indices are ints.
const SourceSystem = -1

// sourceIndex is a C source index as a Go index: SourceSystem for LC_SOURCE_SYSTEM.
func sourceIndex(i C.uint64_t) int {
	if i == C.LC_SOURCE_SYSTEM {
		return SourceSystem
	}
	return int(i)
}

// Loss is one entry of a conversion's loss report: the source message (or item) it was in
// (SourceSystem for the system parameter) and its code.
type Loss struct {
	SourceIndex int
	Code        LossCode
	Name        string // Code.Name(): "dropped_cache_control"
}

// ConvertOptions configure Convert.
type ConvertOptions struct {
	// Strict refuses the conversion at its first loss (StatusConvertLoss, LC_CONVERT_STRICT)
	// instead of reporting it.
	Strict bool
}

// ErrConversionClosed is returned by the methods of a Conversion after Close that need its
// handle (SourceCut, Input); what was read before stays readable.
var ErrConversionClosed = errors.New("loopcompact: conversion is closed")

// Conversion is a converted transcript (lc_conversion): immutable and safe for concurrent use.
// The transcript, source index, allowed cuts, losses and source length are read once when it is
// made; SourceCut and Input use the handle. Release it with Close; a finalizer frees it if it
// becomes unreachable first. An *Input made by Input does not need it.
type Conversion struct {
	mu  sync.RWMutex
	ptr *C.lc_conversion

	format      Format
	transcript  []byte
	sourceIndex []int
	cutAllowed  []bool
	losses      []Loss
	sourceLen   int

	origin     *sourceMap // built on the first Input
	originOnce sync.Once
	originErr  error
}

// liveConversions counts the conversion handles not yet freed (read by the finalizer tests).
var liveConversions atomic.Int64

// FromOpenAIChat converts OpenAI Chat Completions messages (SPEC §16.2): messages is the JSON
// array of the request's messages, as the SDK sends it (json.Marshal of openai-go's
// []ChatCompletionMessageParamUnion, with the assistant messages of responses appended as they
// came). A refusal is an *Error with StatusConvertWire (not JSON) or StatusConvertShape, and
// Location, Offset, Line and Column within messages (Location such as
// "messages[3].tool_calls[0].function.arguments"), never a byte of it.
func FromOpenAIChat(messages []byte) (*Conversion, error) {
	return convertParts(FormatOpenAIChat, ConvertOptions{}, part{"", messages})
}

// FromOpenAIResponses converts an OpenAI Responses input and its instructions (SPEC §16.3): input
// is the JSON of the request's input (an array of items, response.output items appended as they
// came, or one JSON string: a user message); instructions, when not "", is the system message,
// wire message 0 with source index SourceSystem. Errors as FromOpenAIChat, with offsets within
// input.
func FromOpenAIResponses(input []byte, instructions string) (*Conversion, error) {
	if instructions == "" {
		return convertParts(FormatOpenAIResponses, ConvertOptions{}, part{`{"input":`, input}, part{"}", nil})
	}
	quoted, err := marshalText(instructions)
	if err != nil {
		return nil, err
	}
	return convertParts(FormatOpenAIResponses, ConvertOptions{}, part{`{"input":`, input},
		part{`,"instructions":` + string(quoted) + "}", nil})
}

// FromAnthropic converts Anthropic Messages (SPEC §16.4): messages is the JSON array of the
// request's messages (response content appended as it came); system, when not empty, is the JSON
// of the system parameter (a string or an array of text blocks), wire message 0 with source index
// SourceSystem. Errors as FromOpenAIChat, with offsets within the argument they fall in.
func FromAnthropic(messages, system []byte) (*Conversion, error) {
	return convertWithSystem(FormatAnthropic, "messages", messages, "system", system)
}

// FromGemini converts Google Gemini contents (SPEC §16.5): contents is the JSON array of the
// request's contents (lowerCamelCase or snake_case field names, as the REST API and the SDKs
// write them); systemInstruction, when not empty, is the JSON of the system instruction (a
// Content), wire message 0 with source index SourceSystem. Errors as FromAnthropic.
func FromGemini(contents, systemInstruction []byte) (*Conversion, error) {
	return convertWithSystem(FormatGemini, "contents", contents, "system_instruction", systemInstruction)
}

// FromLangChain converts a LangChain message list (SPEC §16.6): the JSON array of the messages in
// messages_to_dict, dumpd or model_dump form. Errors as FromOpenAIChat.
func FromLangChain(messages []byte) (*Conversion, error) {
	return convertParts(FormatLangChain, ConvertOptions{}, part{"", messages})
}

// FromModelMessages converts the Vercel AI SDK's ModelMessage[] (SPEC §16.7): JSON.stringify of
// the messages, bytes as base64 strings. Errors as FromOpenAIChat.
func FromModelMessages(messages []byte) (*Conversion, error) {
	return convertParts(FormatAISDK, ConvertOptions{}, part{"", messages})
}

// Convert converts a whole source document of format as the library reads it (SPEC §16.1): the
// messages array (Chat, LangChain, AI SDK), {"input": ..., "instructions": ...} (Responses),
// {"system": ..., "messages": [...]} (Anthropic) or {"contents": [...], "system_instruction":
// ...} (Gemini). opts.Strict refuses any loss. Diagnoses count bytes of document;
// StatusInvalidArgument for a format that is not a Format constant.
func Convert(format Format, document []byte, opts ConvertOptions) (*Conversion, error) {
	return convertParts(format, opts, part{"", document})
}

// part is a piece of the source document: fixed glue written by this package, then a caller's
// argument (whose offsets a diagnosis is given in).
type part struct {
	glue string
	arg  []byte
}

func convertWithSystem(format Format, listKey string, list []byte, systemKey string, system []byte) (*Conversion, error) {
	if len(system) == 0 {
		return convertParts(format, ConvertOptions{}, part{`{"` + listKey + `":`, list}, part{"}", nil})
	}
	return convertParts(format, ConvertOptions{}, part{`{"` + listKey + `":`, list},
		part{`,"` + systemKey + `":`, system}, part{"}", nil})
}

// marshalText is s as a JSON string; a string that is not UTF-8 is StatusInvalidArgument (the
// converter would see U+FFFD where the caller wrote other bytes).
func marshalText(s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return nil, newError(StatusInvalidArgument, nil)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// convertParts assembles the document from parts (one part with no glue is the caller's bytes as
// they are, not copied), converts it, and reads the results.
func convertParts(format Format, opts ConvertOptions, parts ...part) (*Conversion, error) {
	doc := parts[0].arg
	if len(parts) > 1 || parts[0].glue != "" {
		n := 0
		for _, p := range parts {
			n += len(p.glue) + len(p.arg)
		}
		doc = make([]byte, 0, n)
		for _, p := range parts {
			doc = append(doc, p.glue...)
			doc = append(doc, p.arg...)
		}
	}
	var flags C.uint32_t
	if opts.Strict {
		flags = C.LC_CONVERT_STRICT
	}
	p, n := bytesArg(doc)
	var h *C.lc_conversion
	d := newDiagnostic()
	rc := C.lc_transcript_convert(C.int32_t(format), p, n, flags, &h, d)
	runtime.KeepAlive(doc)
	if rc != C.LC_OK {
		s := Status(rc)
		if s.boundary() || d.status != rc {
			return nil, newError(s, nil)
		}
		e := newError(s, d)
		if len(parts) > 1 || parts[0].glue != "" {
			rebase(e, parts)
		}
		return nil, e
	}
	c := &Conversion{ptr: h, format: format}
	liveConversions.Add(1)
	runtime.SetFinalizer(c, (*Conversion).Close)
	if err := c.read(); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// rebase makes a diagnosis's Offset, Line and Column count bytes of the caller's argument it fell
// in, not of the document this package assembled; an offset in the glue after an argument is that
// argument's end (the argument ended before a value did).
func rebase(e *Error, parts []part) {
	if e.Offset == OffsetUnknown {
		return
	}
	at := uint64(0)
	var in []byte // the caller's bytes before the offset, in the argument it falls in or follows
	found := false
	for i, p := range parts {
		if e.Offset < at+uint64(len(p.glue)) {
			break
		}
		at += uint64(len(p.glue))
		if i == len(parts)-1 && i > 0 {
			break // the closing glue (no argument): the offset follows the argument before it
		}
		found = true
		if e.Offset <= at+uint64(len(p.arg)) {
			in = p.arg[:e.Offset-at]
			break
		}
		at += uint64(len(p.arg))
		in = p.arg
	}
	if !found {
		// In the glue before the first argument: no place in anything the caller gave.
		e.Offset, e.Line, e.Column = OffsetUnknown, 0, 0
		return
	}
	e.Offset = uint64(len(in))
	e.Line = uint64(bytes.Count(in, []byte("\n")) + 1)
	e.Column = uint64(utf8.RuneCount(in[bytes.LastIndexByte(in, '\n')+1:]) + 1)
}

// twoCall is the two-call pattern over an accessor: call with a capacity (its buffer is the one
// grow last made: none for the size query) and the length written.
func twoCall(call func(cap C.size_t, n *C.size_t) C.lc_status, grow func(n int)) error {
	var n C.size_t
	rc := call(0, &n)
	for try := 0; rc == C.LC_ERR_BUFFER_TOO_SMALL && try < 3; try++ {
		grow(int(n))
		rc = call(n, &n)
	}
	return check(rc)
}

// read fills the fields from the handle, once, when the conversion is made.
func (c *Conversion) read() error {
	h := c.ptr
	var buf []byte
	if err := twoCall(func(cp C.size_t, n *C.size_t) C.lc_status {
		p, _ := bytesArg(buf)
		return C.lc_conversion_transcript(h, p, cp, n)
	}, func(n int) { buf = make([]byte, n) }); err != nil {
		return err
	}
	c.transcript = buf[:len(buf):len(buf)]

	var idx []C.uint64_t
	if err := twoCall(func(cp C.size_t, n *C.size_t) C.lc_status {
		return C.lc_conversion_source_index(h, unsafe.SliceData(idx), cp, n)
	}, func(n int) { idx = make([]C.uint64_t, n) }); err != nil {
		return err
	}
	c.sourceIndex = make([]int, len(idx))
	for i, v := range idx {
		c.sourceIndex[i] = sourceIndex(v)
	}

	var allowed []C.uint8_t
	if err := twoCall(func(cp C.size_t, n *C.size_t) C.lc_status {
		return C.lc_conversion_cut_allowed(h, unsafe.SliceData(allowed), cp, n)
	}, func(n int) { allowed = make([]C.uint8_t, n) }); err != nil {
		return err
	}
	c.cutAllowed = make([]bool, len(allowed))
	for i, v := range allowed {
		c.cutAllowed[i] = v != 0
	}

	var losses []C.lc_loss
	if err := twoCall(func(cp C.size_t, n *C.size_t) C.lc_status {
		return C.lc_conversion_losses(h, unsafe.SliceData(losses), cp, n)
	}, func(n int) { losses = make([]C.lc_loss, n) }); err != nil {
		return err
	}
	c.losses = make([]Loss, len(losses))
	for i, l := range losses {
		code := LossCode(l.code)
		c.losses[i] = Loss{SourceIndex: sourceIndex(l.source_index), Code: code, Name: code.Name()}
	}

	var count C.uint64_t
	if err := check(C.lc_conversion_source_len(h, &count)); err != nil {
		return err
	}
	c.sourceLen = int(count)
	return nil
}

// Close releases the handle (lc_conversion_free). It waits for calls in progress on other
// goroutines, is idempotent, and always returns nil. The fields read stay readable.
func (c *Conversion) Close() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	h := c.ptr
	c.ptr = nil
	c.mu.Unlock()
	if h != nil {
		C.lc_conversion_free(h)
		liveConversions.Add(-1)
		runtime.SetFinalizer(c, nil)
	}
	return nil
}

func (c *Conversion) acquire() (*C.lc_conversion, error) {
	if c == nil {
		return nil, ErrConversionClosed
	}
	c.mu.RLock()
	if c.ptr == nil {
		c.mu.RUnlock()
		return nil, ErrConversionClosed
	}
	return c.ptr, nil
}

func (c *Conversion) release() {
	c.mu.RUnlock()
	runtime.KeepAlive(c)
}

// Format is the source format.
func (c *Conversion) Format() Format { return c.format }

// Transcript is the wire transcript: a JSON array of wire messages in canonical bytes (SPEC §5,
// E7). The slice is the conversion's own: do not modify it.
func (c *Conversion) Transcript() []byte { return c.transcript }

// SourceIndex gives, for each wire message, the index of the source message (or item) it came
// from; SourceSystem for a message made from the system parameter (SPEC G16.2). Several wire
// messages share an index where a source message was split (tool results on their own). A new
// slice on each call.
func (c *Conversion) SourceIndex() []int { return append([]int(nil), c.sourceIndex...) }

// CutAllowed gives, for each wire cut 0..n (n wire messages), whether summarising wire messages
// [0, c) splits no source message (and passes no compaction item the wire cannot carry): n+1
// entries, the CutOptions.Allowed of this transcript. A new slice on each call.
func (c *Conversion) CutAllowed() []bool { return append([]bool(nil), c.cutAllowed...) }

// Losses is what the wire could not carry, in source order (SPEC G16.8); empty for a lossless
// conversion. A new slice on each call.
func (c *Conversion) Losses() []Loss { return append([]Loss(nil), c.losses...) }

// SourceLen is the number of messages (or items, or contents) in the source list, the system
// parameter not counted (lc_conversion_source_len): the length Compacted.Messages checks.
func (c *Conversion) SourceLen() int { return c.sourceLen }

// SourceCut maps an allowed wire cut to the source (SPEC G16.2, lc_conversion_source_cut):
// summarising wire messages [0, wireCut) summarises source messages [0, s); source items the wire
// does not hold after them stay on the kept side. StatusCutUnsafe for a cut that is not allowed,
// StatusInvalidArgument for one above the wire message count, ErrConversionClosed after Close.
func (c *Conversion) SourceCut(wireCut uint64) (int, error) {
	h, err := c.acquire()
	if err != nil {
		return 0, err
	}
	defer c.release()
	var out C.uint64_t
	if err := check(C.lc_conversion_source_cut(h, C.uint64_t(wireCut), &out)); err != nil {
		return 0, err
	}
	return int(out), nil
}

// InputOptions are what Conversion.Input needs besides the transcript (SPEC G16.10).
type InputOptions struct {
	// Provider and Model name the summariser's request (UTF-8, not empty).
	Provider, Model string
	// MaxSummaryTokens is the summary's output token budget.
	MaxSummaryTokens uint64
	// Revision is the basis revision: the host's compaction count plus one (0 is
	// StatusInputBasis).
	Revision uint64
	// Fingerprint is the request fingerprint; nil mints SHA-256 of the canonical
	// {"provider":P,"model":M,"transcript":T}.
	Fingerprint *Fingerprint
}

// Input makes a compaction input around the transcript (SPEC G16.10, lc_conversion_input): the
// basis event id is minted from the transcript, the fingerprint as opts say. The input cuts only
// at the source's boundaries (CutAllowed) without being told, and remembers this conversion's map
// to the source: a round run on it (Compact) gives a *Compacted whose Messages rebuilds the
// source's own list. The *Input is independent of the Conversion (Close either first). Errors:
// those of ParseInput for what was given (StatusInputModel for an empty provider or model,
// StatusInputBasis for revision 0, StatusInputMaxSummaryTokens, StatusInputRequestFingerprint,
// StatusInputTranscript for no message), StatusInvalidArgument for text that is not UTF-8,
// ErrConversionClosed.
func (c *Conversion) Input(opts InputOptions) (*Input, error) {
	origin, err := c.sourceMap()
	if err != nil {
		return nil, err
	}
	h, err := c.acquire()
	if err != nil {
		return nil, err
	}
	defer c.release()
	pp, pn := stringArg(opts.Provider)
	mp, mn := stringArg(opts.Model)
	var fp *C.uint8_t
	var digest Fingerprint
	if opts.Fingerprint != nil {
		digest = *opts.Fingerprint
		fp = (*C.uint8_t)(unsafe.Pointer(&digest[0]))
	}
	var out *C.lc_compaction_input
	rc := C.lc_conversion_input(h, pp, pn, mp, mn, C.uint64_t(opts.MaxSummaryTokens), C.uint64_t(opts.Revision), fp, &out)
	runtime.KeepAlive(&digest)
	if err := check(rc); err != nil {
		return nil, err
	}
	in := &Input{ptr: out, origin: origin, size: len(c.transcript)}
	liveInputs.Add(1)
	runtime.SetFinalizer(in, (*Input).Close)
	return in, nil
}

// sourceMap is what the round keeps of the conversion to rebuild the source's list, built once.
func (c *Conversion) sourceMap() (*sourceMap, error) {
	c.originOnce.Do(func() {
		var msgs []struct {
			Role string `json:"role"`
		}
		if err := json.Unmarshal(c.transcript, &msgs); err != nil {
			c.originErr = err // the library's canonical transcript: never
			return
		}
		m := &sourceMap{format: c.format, sourceLen: c.sourceLen, sourceIndex: c.sourceIndex,
			roles: make([]string, len(msgs)), sourceCuts: make([]int, len(c.cutAllowed))}
		for i, msg := range msgs {
			m.roles[i] = msg.Role
		}
		for cut, ok := range c.cutAllowed {
			m.sourceCuts[cut] = -1
			if ok {
				s, err := c.SourceCut(uint64(cut))
				if err != nil {
					c.originErr = err
					return
				}
				m.sourceCuts[cut] = s
			}
		}
		c.origin = m
	})
	return c.origin, c.originErr
}
