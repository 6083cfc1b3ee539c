package loopcompact

// CompactStream: the round of Compact with a streaming summariser (SPEC T17.6), which stops
// reading a reply at the first chunk after which it cannot become a valid summary.

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"unicode"
	"unicode/utf8"
)

// SummaryUsage is what a streamed reply reports once its last chunk was read: the output tokens
// the provider reported (0: none) and how the call ended, as in SummaryReply.
type SummaryUsage struct {
	OutputTokens uint64
	Stop         Stop
}

// SummaryReplyStream is what a CallModelStream returns: the reply as it arrives, and its usage.
//
// Chunks yields the reply's text in chunks, in order (any size, cut anywhere, even inside a
// UTF-8 sequence), or an error that ends it (yield("", err): the round stops ranging and treats
// err as an error of CallModelStream). CompactStream ranges over it once. When the round stops
// early (the reply cannot pass, or an error), yield returns false and Chunks must return: close
// the provider's stream there, typically with a defer at the top of the function, so that the
// HTTP response is closed at the first dead chunk. Chunks is called before Usage.
//
// Usage is called once, after Chunks returned having yielded every chunk, and never when the
// round stopped reading: return the usage the provider reported at the end of its stream (or an
// error, treated as an error of CallModelStream).
//
// A CallModelStream over openai-go's streaming Chat Completions (the same shape fits Anthropic's
// Messages stream: Next, Current, Err, Close):
//
//	func(ctx context.Context, req lc.SummaryRequest) (lc.SummaryReplyStream, error) {
//		stream := client.Chat.Completions.NewStreaming(ctx, params(req)) // with include_usage
//		var usage lc.SummaryUsage
//		return lc.SummaryReplyStream{
//			Chunks: func(yield func(string, error) bool) {
//				defer stream.Close()
//				for stream.Next() {
//					event := stream.Current()
//					if event.Usage.CompletionTokens > 0 {
//						usage.OutputTokens = uint64(event.Usage.CompletionTokens)
//					}
//					for _, choice := range event.Choices {
//						switch choice.FinishReason {
//						case "stop":
//							usage.Stop = lc.StopEnd
//						case "length":
//							usage.Stop = lc.StopLength
//						}
//						if choice.Delta.Content != "" && !yield(choice.Delta.Content, nil) {
//							return // the round stopped reading: the defer closes the stream
//						}
//					}
//				}
//				if err := stream.Err(); err != nil {
//					yield("", err)
//				}
//			},
//			Usage: func() (lc.SummaryUsage, error) { return usage, nil },
//		}, nil
//	}
type SummaryReplyStream struct {
	Chunks iter.Seq2[string, error]
	Usage  func() (SummaryUsage, error)
}

// CallModelStream sends one SummaryRequest to the summarising model and returns its reply as a
// stream. ctx is CompactStream's. Its error, and an error of the stream's Chunks or Usage, are
// what CallModel's error is to Compact (CompactOptions.OnError).
type CallModelStream func(ctx context.Context, req SummaryRequest) (SummaryReplyStream, error)

// CompactStream is Compact with a streaming summariser (SPEC T17.6): the same round, options and
// results, except that each reply is read chunk by chunk into a SummaryStream and the round stops
// reading at the first chunk after which the reply cannot pass ValidateReply's check (R15.3): it
// breaks out of Chunks (whose function then returns and closes the provider's stream) and never
// calls Usage. Such an attempt counts as any other, with Attempt.Aborted set, ReplyBytes the bytes
// read and the diagnosis known when the reply died (offsets, lines and columns in the reply as
// read, Location "summary", Removed and RemovedBefore what was skipped before it); a ClassRetry
// verdict gives the retry message as the next turn. Precisely:
//
//   - what cleanup would remove before the summary is not fed: with trim the leading White_Space,
//     with unfence then an opening fence line, then with trim White_Space again;
//   - a reply that died at the byte after a complete summary is not aborted when trim or unfence
//     is on: the whole reply's check judges what follows (cleanup may remove it);
//   - a reply longer than MaxReplyBytes is aborted at the chunk that passes the limit, with
//     StatusReplyByteLimit (R15.3 step 2 for the bytes read);
//   - with Structured the reply is a JSON object: its chunks are gathered to the end, with no
//     early abort, and read as Compact reads a Text.
//
// A ctx cancelled while the chunks arrive stops the reading at the next chunk (the iterator
// returns) and the round with ctx.Err().
//
// A reply read to the end (its Usage then called) gets exactly Compact's verdict for the same
// reply returned whole, and an aborted reply is one that Compact would have rejected too.
// A SummaryReplyStream without Chunks or Usage, or a Usage whose Stop is not a Stop constant, is
// ErrInvalidReply.
func CompactStream(ctx context.Context, in *Input, callModel CallModelStream, opts CompactOptions) (CompactResult, error) {
	if callModel == nil {
		return nil, fmt.Errorf("%w: callModel is nil", ErrInvalidOption)
	}
	return compactRound(ctx, in, opts, func(ctx context.Context, req SummaryRequest, r *replyReader) (answer, *modelFailure, error) {
		reply, err := callModel(ctx, req)
		if err != nil {
			return answer{}, &modelFailure{"callModel", err}, nil
		}
		if reply.Chunks == nil || reply.Usage == nil {
			return answer{}, nil, fmt.Errorf("%w: attempt %d: SummaryReplyStream without Chunks or Usage", ErrInvalidReply, req.Attempt)
		}
		return r.read(ctx, reply)
	})
}

// read reads one streamed reply (SPEC T17.6): the whole reply with its usage, or the abort of
// the first chunk after which it cannot pass. A ctx cancelled while the chunks arrive stops the
// reading there (the iterator returns, so the provider's stream is closed) and the round with
// ctx.Err(), as Compact stops before an attempt.
func (r *replyReader) read(ctx context.Context, reply SummaryReplyStream) (answer, *modelFailure, error) {
	check, err := newStreamCheck(r)
	if err != nil {
		return answer{}, nil, err
	}
	defer check.close()
	for chunk, err := range reply.Chunks {
		if err != nil {
			return answer{}, &modelFailure{"the reply's Chunks", err}, nil
		}
		if err := ctx.Err(); err != nil {
			return answer{}, nil, err
		}
		aborted, err := check.add(chunk)
		if err != nil {
			return answer{}, nil, err
		}
		if aborted != nil {
			return answer{reply: SummaryReply{Text: string(check.received)}, aborted: aborted}, nil, nil
		}
	}
	usage, err := reply.Usage()
	if err != nil {
		return answer{}, &modelFailure{"the reply's Usage", err}, nil
	}
	text := SummaryReply{Text: string(check.received), OutputTokens: usage.OutputTokens, Stop: usage.Stop}
	return answer{reply: text}, nil, nil
}

// leadPhase is where reading what cleanup would remove before the summary (R15.5) has reached.
type leadPhase string

// The phases, in the order met.
const (
	leadTrim      leadPhase = "trim"
	leadFence     leadPhase = "fence"
	leadTrimAgain leadPhase = "trim again"
	leadBody      leadPhase = "body"
)

// streamCheck reads one streamed reply: it keeps its bytes, skips what cleanup would remove
// before the summary, feeds the rest to a SummaryStream and says at the first chunk after which
// the reply cannot pass. After a complete summary it stops feeding: what follows can only be
// removed by cleanup or fail, which the whole reply's check decides. With structured replies the
// bytes are only gathered.
type streamCheck struct {
	r        *replyReader
	received []byte
	stream   *SummaryStream // nil for structured replies
	started  bool           // past the lead: the summary starts at start
	start    int
	fed      int // where feeding has reached (in the lead: where the lead has been read to)
	removed  Cleanup
	phase    leadPhase
	tail     bool // the summary was complete: nothing more is fed
}

func newStreamCheck(r *replyReader) (*streamCheck, error) {
	c := &streamCheck{r: r, phase: leadBody}
	switch {
	case r.opts.Trim:
		c.phase = leadTrim
	case r.opts.Unfence:
		c.phase = leadFence
	}
	if !r.structured {
		s, err := NewSummaryStream()
		if err != nil {
			return nil, err
		}
		c.stream = s
	}
	return c, nil
}

func (c *streamCheck) close() {
	if c.stream != nil {
		c.stream.Close()
	}
}

// add reads one chunk: a non-nil *Error once the reply cannot pass (its diagnosis).
func (c *streamCheck) add(chunk string) (*Error, error) {
	c.received = append(c.received, chunk...)
	if c.r.structured {
		return nil, nil // the limit counts the rendered summary (G17.10): checked at the end
	}
	if uint64(len(c.received)) > c.r.opts.MaxReplyBytes {
		// R15.3 step 2 comes first whatever follows: the library's own verdict of it.
		_, d, rc, err := c.r.in.diagnoseReply(c.received, ReplyOptions{MaxReplyBytes: c.r.opts.MaxReplyBytes})
		if err != nil {
			return nil, err
		}
		if d == nil {
			d = newError(rc, nil)
		}
		return d, nil
	}
	if !c.started {
		c.lead()
		if !c.started {
			return nil, nil
		}
	}
	if c.tail {
		return nil, nil
	}
	err := c.stream.Feed(c.received[c.fed:])
	c.fed = len(c.received)
	if err == nil {
		return nil, nil
	}
	found, ok := err.(*Error)
	if !ok {
		return nil, err
	}
	return c.died(found)
}

// lead moves past what cleanup would remove before the summary, as far as the bytes go.
func (c *streamCheck) lead() {
	data := c.received
	pos := c.fed
	for {
		if pos >= len(data) {
			c.fed = pos
			return
		}
		switch c.phase {
		case leadTrim, leadTrimAgain:
			if !utf8.FullRune(data[pos:]) {
				c.fed = pos // a character cut by the end of what arrived: wait
				return
			}
			r, size := utf8.DecodeRune(data[pos:])
			if size > 1 || r != utf8.RuneError {
				if unicode.Is(unicode.White_Space, r) {
					pos += size
					c.removed |= ReplyTrim
					continue
				}
			}
			// Not White_Space, or a byte that starts no valid UTF-8 sequence: the trim ends.
			if c.phase == leadTrim && c.r.opts.Unfence {
				c.phase = leadFence
			} else {
				c.phase = leadBody
			}
		case leadFence:
			fence, known := c.fenceLine(pos)
			if !known {
				c.fed = pos
				return
			}
			if fence {
				pos += bytes.IndexByte(data[pos:], '\n') + 1
				c.removed |= ReplyUnfence
				if c.r.opts.Trim {
					c.phase = leadTrimAgain
				} else {
					c.phase = leadBody
				}
			} else {
				c.phase = leadBody
			}
		default:
			c.start, c.fed, c.started = pos, pos, true
			return
		}
	}
}

// fenceLine says whether an opening fence line (R15.5) starts at pos; known is false until its
// LF arrived (or a byte shows it cannot be one).
func (c *streamCheck) fenceLine(pos int) (fence, known bool) {
	data := c.received
	mark := data[pos]
	if mark != '`' && mark != '~' {
		return false, true
	}
	run := pos
	for run < len(data) && data[run] == mark {
		run++
	}
	if run-pos < 3 && run < len(data) {
		return false, true
	}
	end := bytes.IndexByte(data[run:], '\n')
	info := data[run:]
	if end >= 0 {
		info = data[run : run+end]
	}
	if mark == '`' && bytes.IndexByte(info, '`') >= 0 {
		return false, true
	}
	if end < 0 {
		return false, false
	}
	return run-pos >= 3, true
}

// died is the abort of a reply whose stream died with found, or nil when the stream died at the
// byte after a complete summary and cleanup may remove what follows.
func (c *streamCheck) died(found *Error) (*Error, error) {
	dead, _ := c.stream.DeadOffset()
	if c.r.opts.Trim || c.r.opts.Unfence {
		if ValidateSummaryXML(c.received[c.start:c.start+int(dead)]) == nil {
			c.tail = true
			return nil, nil
		}
	}
	// Offsets, lines and columns of the reply as it arrived (R15.7, C13.2: lines end at LF,
	// columns count characters).
	offset := c.start
	if found.Offset != OffsetUnknown {
		offset += int(found.Offset)
	}
	before := c.received[:offset]
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	column := uint64(1)
	for _, b := range before[lineStart:] {
		if b&0xC0 != 0x80 {
			column++
		}
	}
	e := *found
	e.Offset = uint64(offset)
	e.Line = uint64(bytes.Count(before, []byte{'\n'})) + 1
	e.Column = column
	e.Location = "summary"
	e.Removed = c.removed
	e.RemovedBefore = uint64(c.start)
	e.RemovedAfter = 0
	return &e, nil
}
