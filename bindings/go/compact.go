package loopcompact

// Compact: one compaction round from the model's own reply (SPEC R15.12), over the calls of
// round.go and the caller's CallModel.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// ChatMessage is one chat turn of a SummaryRequest: Role "user" or "assistant", and its text.
type ChatMessage struct {
	Role    string
	Content string
}

// SummaryRequest is what CallModel sends the summariser for one attempt (SPEC R15.12 step 2).
type SummaryRequest struct {
	// System is the system prompt: SummaryInstructions().
	System string
	// Messages are the chat turns: first a user turn holding the head (EncodeHeadWithin of the
	// round's cut, as UTF-8 text), then for each earlier rejected attempt of the round an
	// assistant turn (the rejected reply with CompactOptions.ReshowRejected, else exactly
	// WithheldReply) and a user turn with that attempt's retry message. Each request has its own
	// slice.
	Messages []ChatMessage
	// MaxTokens is the output token budget to ask the provider for (max_tokens,
	// max_completion_tokens, maxOutputTokens).
	MaxTokens uint64
	// Attempt is the attempt's number, 1 for the first.
	Attempt int
	// JSONSchema is, with CompactOptions.Structured, the JSON Schema of the reply
	// (SummaryJSONSchema(), SPEC G17.10) to hand the provider's structured output; "" otherwise.
	JSONSchema string
}

// SummaryReply is what CallModel returns: the summariser's text as it arrived, the output token
// usage the provider reported (0: none) and how the call ended. The adapter of a provider maps its
// response to it (bindings/go/README.md shows one for OpenAI's Chat Completions).
//
// Sections, when set, is the summary as the five sections' texts (a structured output the adapter
// decoded itself): Compact renders it with RenderSummary and checks the rendered summary as it
// checks a text; Text is then not read (SPEC G17.10). With CompactOptions.Structured, a reply
// without Sections has the JSON object of SummaryJSONSchema as its Text.
type SummaryReply struct {
	Text         string
	OutputTokens uint64
	Stop         Stop
	Sections     *SectionTexts
}

// CallModel sends one SummaryRequest to the summarising model and returns its reply. ctx is
// Compact's. An error is returned by Compact as it is, unless CompactOptions.OnError is
// OnErrorKeepHistory; retrying transient failures is the provider SDK's job.
type CallModel func(ctx context.Context, req SummaryRequest) (SummaryReply, error)

// WithheldReply is the assistant turn that stands for a rejected reply in the next request when
// CompactOptions.ReshowRejected is false: a model shown its own bad reply tends to copy it.
const WithheldReply = "[previous summary withheld: it was rejected]"

// StructuredNote follows the instructions and every retry message with CompactOptions.Structured
// (SPEC G17.10): the reply is the JSON object of SummaryJSONSchema, its texts plain (RenderSummary
// escapes them).
const StructuredNote = "Structured output: instead of the XML document, reply with one JSON object of the given schema: the keys goal, constraints, decisions, state and open_items, each a string holding that section's plain text, without XML tags and without XML escapes (write &, < and > as they are); goal and state must not be blank."

// OnError says what Compact does when CallModel returns an error.
type OnError string

// The values of CompactOptions.OnError.
const (
	// OnErrorRaise (or ""): Compact returns the error as CallModel returned it.
	OnErrorRaise OnError = "raise"
	// OnErrorKeepHistory: Compact returns a *KeepHistory whose Reason names the error's type
	// (never its text) and whose ModelErr holds it.
	OnErrorKeepHistory OnError = "keep_history"
)

// CompactOptions configure Compact. The zero value is the default round: the largest safe cut
// keeping no message, 3 attempts, no limit on the head, the reply limited to 16 bytes per summary
// token, trim and unfence on, rejected replies withheld, CallModel's errors returned.
type CompactOptions struct {
	// KeepLast is the number of recent messages to keep at least: the cut is
	// SafeCutWith(KeepLast, CutOptions{PendingTail: !NoPendingTail}).
	KeepLast uint64
	// NoPendingTail refuses a transcript whose last assistant turn waits for tool results (SPEC
	// §14's verdict, StatusPairingUnansweredCall) instead of cutting before that turn (G16.13).
	NoPendingTail bool
	// Attempts is the number of attempts; 0 means 3.
	Attempts int
	// MaxInputBytes is the head's byte budget (EncodeHeadWithin); 0 means no limit.
	MaxInputBytes uint64
	// MaxReplyBytes is the byte limit of a reply as it arrived; 0 means 16 × the input's
	// max_summary_tokens, at least SmallestSummaryLen. A limit below SmallestSummaryLen ends the
	// round before any request with StatusReplyByteLimitUnreachable (ClassHost): no reply can meet it.
	MaxReplyBytes uint64
	// MaxTokens is the first request's MaxTokens; 0 means the input's max_summary_tokens, which
	// it may not exceed.
	MaxTokens uint64
	// NoTrim and NoUnfence turn off the cleanups ValidateReply applies to every reply (both on
	// by default in a round; Attempt.Removed reports what they removed).
	NoTrim, NoUnfence bool
	// ReshowRejected sends each rejected reply back as the assistant turn of the next requests,
	// instead of WithheldReply.
	ReshowRejected bool
	// OnAttempt, when set, is called with every attempt once its reply was checked, before the
	// round decides what comes next (progress and logs).
	OnAttempt func(Attempt)
	// OnError says what a CallModel error does: OnErrorRaise ("" too) or OnErrorKeepHistory.
	OnError OnError
	// Structured turns on structured output (SPEC G17.10): each request carries the summary's
	// JSON Schema (SummaryRequest.JSONSchema) and the instructions end with StructuredNote; a
	// reply's Text is read as that JSON object (not JSON: StatusSummaryWire; another shape:
	// StatusSummaryOutputShape; either stopped by length: StatusReplyTruncated), rendered, then
	// checked as a text reply is. A reply with Sections is rendered with or without it.
	Structured bool
}

// Attempt is the record of one attempt of a round: what was sent, what came back and the verdict.
type Attempt struct {
	Number     int            // 1-based
	Request    SummaryRequest // the request sent
	ReplyBytes int            // len(reply.Text); with Sections, the rendered summary's length (0 when refused)
	Stop       Stop           // the reply's Stop
	Status     Status         // the verdict (ValidateReply's)
	Class      Class          // what the round did about it (the diagnosis's class)
	// Diagnosis is the verdict's *Error, with where and why (SPEC §13, R15.7) and its
	// RetryMessage; nil when the reply was accepted.
	Diagnosis *Error
	// What cleanup removed around the summary (on an accepted reply too): the cleanups that
	// removed something and the bytes before and after the text.
	Removed       Cleanup
	RemovedBefore uint64
	RemovedAfter  uint64
	// Aborted is true for a streamed reply (CompactStream) that the round stopped reading at the
	// first chunk after which it could not pass (SPEC T17.6): ReplyBytes then counts the bytes
	// read, Stop is StopUnknown (the usage was never asked) and the verdict is the one known when
	// the reply died.
	Aborted bool
}

// CompactResult is the outcome of a round: *Compacted or *KeepHistory, nothing else (the
// interface is sealed). Take it apart with a type switch:
//
//	switch r := res.(type) {
//	case *lc.Compacted:   // replace the history with r.Replacement
//	case *lc.KeepHistory: // log r.Reason; the history stays as it was
//	}
//
// Only *Compacted has a summary and a replacement, so a round that did not end in a valid
// summary cannot be committed by mistake.
type CompactResult interface {
	compactResult()
}

// Compacted is a round that produced a valid summary: replace the history with Replacement, or,
// for an Input made by Conversion.Input, with Messages(source): the new list in the source's own
// format.
type Compacted struct {
	// Summary is the accepted summary (ValidateReply's: the reply without what cleanup removed).
	Summary string
	// Cut is the message index summarised up to: messages [0, Cut) are replaced, [Cut, n) kept.
	Cut uint64
	// Replacement is BuildReplacement(Cut, Summary): the new transcript as a JSON array of wire
	// messages (canonical bytes).
	Replacement []byte
	// Attempts are the round's attempts in order, the accepted one last.
	Attempts []Attempt
	// Diagnoses are the attempts' diagnoses, one per attempt (nil for the accepted one).
	Diagnoses []*Error

	// origin is the Input's map back to the source (Conversion.Input), for Messages and
	// SourceCut; nil for an Input from ParseInput.
	origin *sourceMap
}

// KeepHistory is a round that ended without a summary: the history stays as it was. It is a
// result, not an error: the round worked and decided not to replace anything.
type KeepHistory struct {
	// Reason is a short sentence saying why, built from static text, numbers and type names
	// only (never a reply's or an error's text).
	Reason string
	// Status is the status that ended the round: the last attempt's verdict, or the cut's or the
	// head's (StatusReplacementEmptyHead, a pairing status, StatusInputTooLarge) when no model was
	// called. StatusOK only when ModelErr is set: no status describes the caller's own failure.
	Status Status
	// Diagnosis is Status's *Error with its diagnosis; nil when ModelErr is set.
	Diagnosis *Error
	// ModelErr is CallModel's error when OnError is OnErrorKeepHistory.
	ModelErr error
	// Attempts and Diagnoses as for Compacted (empty when no model was called).
	Attempts  []Attempt
	Diagnoses []*Error
}

func (*Compacted) compactResult()   {}
func (*KeepHistory) compactResult() {}

// ErrInvalidOption is wrapped by the error Compact returns for options it cannot run with.
var ErrInvalidOption = errors.New("loopcompact: invalid CompactOptions")

// ErrInvalidReply is wrapped by the error Compact returns when CallModel returns a reply that is
// not one: a Stop that is not a Stop constant. (Any other value is a SummaryReply by its type.)
var ErrInvalidReply = errors.New("loopcompact: CallModel returned an invalid SummaryReply")

// Compact runs one compaction round (SPEC R15.12) with the caller's model:
//
//  1. the cut is in.SafeCutWith(opts.KeepLast, CutOptions{PendingTail: !opts.NoPendingTail}):
//     a pending tail (the last assistant turn waiting for results) stays on the kept side, and an
//     input made by Conversion.Input cuts only at its source's boundaries; a cut that leaves
//     nothing to summarise, a transcript whose tool calls are otherwise not paired, or a head
//     that does not fit under MaxInputBytes ends the round at once with *KeepHistory, the model
//     not called;
//  2. each attempt sends a SummaryRequest and checks the reply with ValidateReply (trim and
//     unfence on unless turned off); OnAttempt sees it;
//  3. an accepted reply gives *Compacted with the summary, the cut and the replacement;
//  4. a ClassRetry verdict leads to the next attempt while attempts remain, its request holding
//     one more pair of turns (so no two requests of a round are equal); a truncated reply first
//     doubles MaxTokens (up to max_summary_tokens), then shrinks the head's byte budget to three
//     quarters of the head last sent (the head stays when nothing smaller fits);
//  5. any other verdict, or running out of attempts, gives *KeepHistory with that status
//     (StatusSummaryTokenUsage's reason says to turn usage reporting on).
//
// ctx is passed to callModel, and a cancelled ctx stops the round before the next attempt with
// ctx.Err(). Compact returns an error only for the host's own faults: a closed Input, a nil
// callModel, invalid options (ErrInvalidOption), a reply that is not one (ErrInvalidReply),
// ctx's error, and callModel's error unless opts.OnError is OnErrorKeepHistory. Never is a partial
// reply, an error text or an unvalidated summary in a *Compacted.
func Compact(ctx context.Context, in *Input, callModel CallModel, opts CompactOptions) (CompactResult, error) {
	if callModel == nil {
		return nil, fmt.Errorf("%w: callModel is nil", ErrInvalidOption)
	}
	return compactRound(ctx, in, opts, func(ctx context.Context, req SummaryRequest, _ *replyReader) (answer, *modelFailure, error) {
		reply, err := callModel(ctx, req)
		if err != nil {
			return answer{}, &modelFailure{"callModel", err}, nil
		}
		return answer{reply: reply}, nil, nil
	})
}

// answer is what one attempt's call gave the round: a whole reply, or (aborted set) a streamed
// reply the round stopped reading, whose bytes read are reply.Text.
type answer struct {
	reply   SummaryReply
	aborted *Error
}

// modelFailure is an error of the caller's code during an attempt (callModel, a stream's Chunks
// or Usage): what returned it, and the error.
type modelFailure struct {
	what string
	err  error
}

// fetchReply makes one attempt's call; a non-nil error is the host's fault (returned by the
// round as it is).
type fetchReply func(ctx context.Context, req SummaryRequest, r *replyReader) (answer, *modelFailure, error)

// replyReader is what reading a streamed reply needs of the round: the Input, the cleanup flags
// and byte limit, and whether replies are structured.
type replyReader struct {
	in         *Input
	opts       ReplyOptions
	structured bool
}

// compactRound is Compact and CompactStream after their callModel was checked: the round of
// R15.12 with fetch making each attempt's call.
func compactRound(ctx context.Context, in *Input, opts CompactOptions, fetch fetchReply) (CompactResult, error) {
	attempts := opts.Attempts
	switch {
	case attempts == 0:
		attempts = 3
	case attempts < 0:
		return nil, fmt.Errorf("%w: Attempts is %d; it must be at least 1 (0 for the default, 3)", ErrInvalidOption, attempts)
	}
	switch opts.OnError {
	case "", OnErrorRaise, OnErrorKeepHistory:
	default:
		return nil, fmt.Errorf("%w: OnError must be OnErrorRaise or OnErrorKeepHistory", ErrInvalidOption)
	}

	// Step 1: the cut and the head.
	cut, err := in.SafeCutWith(opts.KeepLast, CutOptions{PendingTail: !opts.NoPendingTail})
	if err != nil {
		var e *Error
		if errors.As(err, &e) && isPairing(e.Status) {
			return keep(e, "the transcript's tool calls and results are not paired (SPEC S14.3), so no cut is safe", nil), nil
		}
		return nil, err
	}
	budget := opts.MaxInputBytes
	if budget == 0 {
		budget = math.MaxUint64
	}
	head, err := in.EncodeHeadWithin(cut, budget)
	if err != nil {
		var e *Error
		switch {
		case errors.As(err, &e) && e.Status == StatusReplacementEmptyHead:
			return keep(e, "nothing to summarise: only leading system messages come before the cut", nil), nil
		case errors.As(err, &e) && e.Status == StatusInputTooLarge:
			return keep(e, "the head does not fit under MaxInputBytes, even with old tool results omitted", nil), nil
		}
		return nil, err
	}
	maxSummary, err := in.MaxSummaryTokens()
	if err != nil {
		return nil, err
	}
	maxTokens := opts.MaxTokens
	switch {
	case maxTokens == 0:
		maxTokens = maxSummary
	case maxTokens > maxSummary:
		return nil, fmt.Errorf("%w: MaxTokens %d is above the input's max_summary_tokens %d", ErrInvalidOption, maxTokens, maxSummary)
	}
	replyOpts := ReplyOptions{
		Trim:          !opts.NoTrim,
		Unfence:       !opts.NoUnfence,
		MaxReplyBytes: opts.MaxReplyBytes,
	}
	if replyOpts.MaxReplyBytes == 0 {
		replyOpts.MaxReplyBytes = max(SmallestSummaryLen, satMul(16, maxSummary))
	}
	if replyOpts.MaxReplyBytes < SmallestSummaryLen {
		// Step 1 with R15.2: no reply can meet the limit, so no request is sent. The diagnosis is
		// the reply check's own (R15.3 step 1 holds whatever the reply).
		_, e, _, err := in.diagnoseReply(nil, replyOpts)
		if err != nil {
			return nil, err
		}
		if e != nil {
			return keep(e, "MaxReplyBytes is below the smallest valid summary, so no reply can meet it; no request was sent", nil), nil
		}
	}
	reader := replyReader{in: in, opts: replyOpts, structured: opts.Structured}

	system, schema := SummaryInstructions(), ""
	if opts.Structured {
		system, schema = system+"\n\n"+StructuredNote, SummaryJSONSchema()
	}
	headText := ownedString(head)
	var (
		turns     []ChatMessage // the rejected attempts' pairs of turns, in order
		records   []Attempt
		diagnoses []*Error
	)
	for n := 1; n <= attempts; n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Step 2: the request, with its own slice of turns.
		msgs := make([]ChatMessage, 0, 1+len(turns))
		msgs = append(msgs, ChatMessage{Role: "user", Content: headText})
		msgs = append(msgs, turns...)
		req := SummaryRequest{System: system, Messages: msgs, MaxTokens: maxTokens, Attempt: n, JSONSchema: schema}
		got, failed, err := fetch(ctx, req, &reader)
		if err != nil {
			return nil, err
		}
		if failed != nil {
			if opts.OnError == OnErrorKeepHistory {
				return &KeepHistory{
					Reason:    fmt.Sprintf("attempt %d: %s returned an error of type %T", n, failed.what, failed.err),
					ModelErr:  failed.err,
					Attempts:  records,
					Diagnoses: diagnoses,
				}, nil
			}
			return nil, failed.err
		}
		reply := got.reply
		if !reply.Stop.valid() {
			return nil, fmt.Errorf("%w: attempt %d: Stop is %s", ErrInvalidReply, n, reply.Stop)
		}

		// Step 3: the verdict, with its diagnosis (what cleanup removed, on success too).
		replyOpts.OutputTokens, replyOpts.Stop = reply.OutputTokens, reply.Stop
		var (
			summary string
			d       *Error
			rc      Status
		)
		size := len(reply.Text)
		switch {
		case got.aborted != nil:
			d, rc = got.aborted, got.aborted.Status
		case reply.Sections != nil || opts.Structured:
			summary, d, rc, size, err = in.checkStructured(reply, replyOpts, maxSummary)
		default:
			summary, d, rc, err = in.diagnoseReply([]byte(reply.Text), replyOpts)
		}
		if err != nil {
			return nil, err
		}
		a := Attempt{Number: n, Request: req, ReplyBytes: size, Stop: reply.Stop, Status: rc, Aborted: got.aborted != nil}
		if d != nil {
			a.Removed, a.RemovedBefore, a.RemovedAfter = d.Removed, d.RemovedBefore, d.RemovedAfter
		}
		if rc == StatusOK {
			a.Class = ClassOK
		} else {
			a.Diagnosis = d
			if d == nil {
				a.Diagnosis = newError(a.Status, nil)
			}
			a.Class = a.Diagnosis.Class()
		}
		records = append(records, a)
		diagnoses = append(diagnoses, a.Diagnosis)
		if opts.OnAttempt != nil {
			opts.OnAttempt(a)
		}

		switch {
		case a.Class == ClassOK:
			replacement, err := in.BuildReplacement(cut, summary)
			if err != nil {
				return nil, err // a closed Input: the summary and the cut were checked
			}
			return &Compacted{Summary: summary, Cut: cut, Replacement: replacement, Attempts: records, Diagnoses: diagnoses,
				origin: in.origin}, nil
		case a.Class != ClassRetry:
			return keep(a.Diagnosis, stopReason(a), records), nil
		case n == attempts:
			return keep(a.Diagnosis, "all "+strconv.Itoa(attempts)+" attempts were rejected, the last with "+a.Status.Name(), records), nil
		}

		// Step 4: escalation of a truncated reply, then the pair of turns for the next request.
		if a.Status == StatusReplyTruncated {
			if maxTokens < maxSummary {
				maxTokens = min(satMul(2, maxTokens), maxSummary)
			} else {
				budget = uint64(len(head)) / 4 * 3
				budget += uint64(len(head)) % 4 * 3 / 4 // floor(3/4 × len), without overflow
				smaller, err := in.EncodeHeadWithin(cut, budget)
				switch {
				case err == nil:
					head, headText = smaller, ownedString(smaller)
				case !errors.Is(err, StatusInputTooLarge):
					return nil, err
				}
			}
		}
		rejected := WithheldReply
		if opts.ReshowRejected && (reply.Sections == nil || reply.Text != "") {
			rejected = reply.Text
		}
		retry := a.Diagnosis.RetryMessage()
		if opts.Structured {
			retry += "\n\n" + StructuredNote
		}
		turns = append(turns,
			ChatMessage{Role: "assistant", Content: rejected},
			ChatMessage{Role: "user", Content: retry})
	}
	panic("unreachable: the last attempt returns")
}

// diagnoseReply is ValidateReply with the diagnosis on every verdict (lc_compaction_reply_diagnose,
// one pass): the summary on StatusOK, and an *Error holding the diagnosis (on StatusOK only its
// Removed fields mean anything); nil when the library gave none (a boundary status, a panic).
func (in *Input) diagnoseReply(text []byte, opts ReplyOptions) (string, *Error, Status, error) {
	h, err := in.acquire()
	if err != nil {
		return "", nil, 0, err
	}
	defer in.release()
	summary, d, rc := replyDiagnose(h, text, opts, true)
	if d == nil {
		return summary, nil, Status(rc), nil
	}
	e := newError(Status(rc), d)
	return summary, e, Status(rc), nil
}

// checkStructured is SPEC G17.10 steps 2-5 for one reply: its Sections (or its Text read as the
// schema's JSON object) rendered, then checked as diagnoseReply checks a text. It returns the
// summary on StatusOK, the verdict's *Error, the status and the attempt's ReplyBytes.
func (in *Input) checkStructured(reply SummaryReply, opts ReplyOptions, maxSummary uint64) (string, *Error, Status, int, error) {
	var texts SectionTexts
	size := -1
	if reply.Sections != nil {
		texts = *reply.Sections
	} else {
		size = len(reply.Text)
		read, st := readSections(reply.Text)
		if st != StatusOK {
			e := newError(st, nil)
			e.Rule, e.Location = "G17.10", "summary"
			if reply.Stop == StopLength {
				e = newError(StatusReplyTruncated, nil)
				e.Rule, e.Location, e.Limit, e.Actual = "R15.4", "summary", maxSummary, reply.OutputTokens
				if e.Actual == math.MaxUint64 {
					e.Actual-- // a known value of UINT64_MAX is written as UINT64_MAX - 1 (C13.2)
				}
			}
			return "", e, e.Status, size, nil
		}
		texts = read
	}
	rendered, err := RenderSummary(texts)
	if err != nil {
		var refused *Error
		if !errors.As(err, &refused) {
			return "", nil, 0, 0, err
		}
		e := renderRefusal(texts, refused.Status)
		return "", e, e.Status, max(size, 0), nil
	}
	summary, d, rc, err := in.diagnoseReply([]byte(rendered), opts)
	if size < 0 {
		size = len(rendered)
	}
	return summary, d, rc, size, err
}

// renderRefusal is the diagnosis of RenderSummary's refusal (SPEC G17.10 step 4): the status, and
// the first section whose text alone (the others "." for goal and state, "" for the rest) the
// renderer refuses with it.
func renderRefusal(texts SectionTexts, status Status) *Error {
	e := newError(status, nil)
	e.Rule, e.Location = "G17.9", "summary"
	if status == StatusSummaryXMLContent {
		e.Expected = "non-blank text"
	}
	all := [5]string{texts.Goal, texts.Constraints, texts.Decisions, texts.State, texts.OpenItems}
	for i, text := range all {
		alone := [5]string{".", "", "", ".", ""}
		alone[i] = text
		_, err := RenderSummary(SectionTexts{Goal: alone[0], Constraints: alone[1], Decisions: alone[2], State: alone[3], OpenItems: alone[4]})
		var refused *Error
		if errors.As(err, &refused) && refused.Status == status {
			e.Section = Sections[i]
			break
		}
	}
	return e
}

// readSections reads a structured reply's text as the schema's JSON object (SPEC G17.10 step 3):
// StatusSummaryWire when it is not UTF-8 or not JSON, StatusSummaryOutputShape when it is not an
// object of exactly the five keys with string values. A key given twice counts with its last
// value. A \u escape of a lone surrogate, which encoding/json would turn into U+FFFD, is passed on
// as a byte that is not UTF-8, so that RenderSummary refuses it in its place.
func readSections(text string) (SectionTexts, Status) {
	if !utf8.ValidString(text) || !json.Valid([]byte(text)) {
		return SectionTexts{}, StatusSummaryWire
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &members); err != nil || members == nil || len(members) != 5 {
		return SectionTexts{}, StatusSummaryOutputShape
	}
	var out SectionTexts
	for _, f := range []struct {
		key string
		to  *string
	}{{"goal", &out.Goal}, {"constraints", &out.Constraints}, {"decisions", &out.Decisions}, {"state", &out.State}, {"open_items", &out.OpenItems}} {
		raw, ok := members[f.key]
		if !ok || len(raw) == 0 || raw[0] != '"' {
			return SectionTexts{}, StatusSummaryOutputShape
		}
		if loneSurrogate(raw) {
			*f.to = "\xff"
			continue
		}
		if err := json.Unmarshal(raw, f.to); err != nil {
			return SectionTexts{}, StatusSummaryOutputShape
		}
	}
	return out, StatusOK
}

// loneSurrogate reports a \u escape of a surrogate that is not half of a pair in a JSON string.
func loneSurrogate(raw []byte) bool {
	hex := func(at int) int {
		if at+6 > len(raw) || raw[at] != '\\' || raw[at+1] != 'u' {
			return -1
		}
		v := 0
		for _, c := range raw[at+2 : at+6] {
			switch {
			case c >= '0' && c <= '9':
				v = v<<4 | int(c-'0')
			case c >= 'a' && c <= 'f':
				v = v<<4 | int(c-'a'+10)
			case c >= 'A' && c <= 'F':
				v = v<<4 | int(c-'A'+10)
			default:
				return -1
			}
		}
		return v
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		v := hex(i)
		switch {
		case v < 0:
			i++ // another escape: skip its character
		case v >= 0xD800 && v <= 0xDBFF:
			if w := hex(i + 6); w >= 0xDC00 && w <= 0xDFFF {
				i += 11
				continue
			}
			return true
		case v >= 0xDC00 && v <= 0xDFFF:
			return true
		default:
			i += 5
		}
	}
	return false
}

// keep is the *KeepHistory of a round ended by e.
func keep(e *Error, reason string, attempts []Attempt) *KeepHistory {
	k := &KeepHistory{Reason: reason, Status: e.Status, Diagnosis: e, Attempts: attempts}
	for _, a := range attempts {
		k.Diagnoses = append(k.Diagnoses, a.Diagnosis)
	}
	return k
}

// stopReason is the reason of a round ended at once by an attempt's verdict (not ClassRetry).
func stopReason(a Attempt) string {
	prefix := "attempt " + strconv.Itoa(a.Number) + ": " + a.Status.Name() + " (" + a.Class.String() + "): "
	switch {
	case a.Status == StatusSummaryTokenUsage:
		return prefix + "the provider reported no output token usage; turn usage reporting on"
	case a.Class == ClassDiscard:
		return prefix + "this reply can never be used and retrying will not help"
	case a.Class == ClassBug:
		return prefix + "the library failed internally; please report it"
	}
	return prefix + "the host's limits or input must change; retrying will not help"
}

// isPairing reports the statuses of the pairing check (S14.3), which the cut functions run first.
func isPairing(s Status) bool {
	switch s {
	case StatusPairingUnansweredCall, StatusPairingOrphanResult, StatusPairingDuplicateID, StatusPairingDuplicateResult:
		return true
	}
	return false
}

// satMul is a × b, math.MaxUint64 when that overflows.
func satMul(a, b uint64) uint64 {
	if b != 0 && a > math.MaxUint64/b {
		return math.MaxUint64
	}
	return a * b
}

// ownedString is b as a string without copying it: for bytes the package made and never writes
// again (EncodeHeadWithin's), so the head of a 1 MiB transcript is not copied once more for its
// turn.
func ownedString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}
