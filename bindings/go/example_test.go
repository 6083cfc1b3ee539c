package loopcompact_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	lc "github.com/loopcompact/loopcompact/bindings/go"
)

// compact is the example of README.md (keep the two in step).
func compact(wire, reply []byte, outputTokens uint64) ([]byte, error) {
	in, err := lc.ParseInput(wire) // validated compaction input (SPEC §5)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	request, err := in.EncodeWithin(256 << 10) // the bytes to send to the summariser (§7)
	if err != nil {
		return nil, err
	}
	// ... send request, get the reply and its output token usage ...
	_ = request
	summary, err := in.ValidateOutput(reply, outputTokens, 64<<10) // §6
	if errors.Is(err, lc.StatusSummaryXMLContent) {
		log.Print("summariser left goal or state empty; retry")
	}
	return summary, err // summary: the text of the replacement user message
}

func Example() {
	summary, err := compact([]byte(testWire), testOutput(), 10)
	fmt.Println(string(summary[:22]), err)

	err = lc.ValidateSummaryXML([]byte("<summary/>"))
	var e *lc.Error
	if errors.As(err, &e) {
		fmt.Println(e.Status, e.Name, e.Reason, errors.Is(err, lc.StatusSummaryXMLRoot))
	}
	// Output:
	// <conversation_summary> <nil>
	// LC_SUMMARY_XML_ROOT LC_SUMMARY_XML_ROOT xml_root true
}

// A rejected summary: where, what was expected, and whether the summariser can fix it (the example
// of README.md, keep the two in step).
func ExampleValidateSummaryXML() {
	summary := "<conversation_summary>\n" +
		"<goal>Ship the parser.</goal>\n" +
		"<decisions/><state>Tests pass.</state><open_items/>\n" +
		"</conversation_summary>"
	err := lc.ValidateSummaryXML([]byte(summary))
	var e *lc.Error
	if errors.As(err, &e) {
		fmt.Printf("%s at line %d, column %d (byte %d): section %s, expected %s, rule %s\n",
			e.Reason, e.Line, e.Column, e.Offset, e.Section, e.Expected, e.Rule)
	}
	if errors.Is(err, lc.ClassRetry) {
		retry := e.RetryMessage() // send with the next request to the summariser
		fmt.Println(retry[:60])
	}
	// Output:
	// xml_structure at line 3, column 1 (byte 53): section constraints, expected <constraints>, rule X4.18
	// Your summary was rejected at line 3, column 1, in the constr
}

// A round (SPEC R15.12) with a scripted model that first leaves out a section, then answers in a
// Markdown fence; OnAttempt logs each attempt (the example of README.md, keep the two in step).
func ExampleCompact() {
	in, err := lc.ParseInput([]byte(roundDoc(roundMessages()...))) // 6 messages
	if err != nil {
		log.Fatal(err)
	}
	defer in.Close()
	replies := []string{roundRejected, "```xml\n" + roundSummary + "\n```"}
	callModel := func(ctx context.Context, req lc.SummaryRequest) (lc.SummaryReply, error) {
		// A real one sends req.System, req.Messages and req.MaxTokens to the provider.
		return lc.SummaryReply{Text: replies[req.Attempt-1], OutputTokens: 40, Stop: lc.StopEnd}, nil
	}
	res, err := lc.Compact(context.Background(), in, callModel, lc.CompactOptions{
		KeepLast: 1,
		OnAttempt: func(a lc.Attempt) {
			fmt.Printf("attempt %d: %s (%s), %d bytes, stop %s", a.Number, a.Status.Name(), a.Class, a.ReplyBytes, a.Stop)
			if a.Diagnosis != nil {
				fmt.Printf(", line %d, column %d, expected %s", a.Diagnosis.Line, a.Diagnosis.Column, a.Diagnosis.Expected)
			}
			if a.Removed != 0 {
				fmt.Printf(", removed %s: %d bytes before, %d after", a.Removed, a.RemovedBefore, a.RemovedAfter)
			}
			fmt.Println()
		},
	})
	if err != nil {
		log.Fatal(err) // a closed input, invalid options, ctx's error, or callModel's
	}
	switch r := res.(type) {
	case *lc.Compacted:
		fmt.Printf("compacted: messages [0, %d) become a %d-byte summary; replacement verifies: %v\n",
			r.Cut, len(r.Summary), in.VerifyReplacement(r.Cut, r.Replacement) == nil)
	case *lc.KeepHistory:
		fmt.Println("history kept:", r.Reason)
	}
	// Output:
	// attempt 1: LC_SUMMARY_XML_STRUCTURE (LC_CLASS_RETRY), 120 bytes, stop end, line 3, column 1, expected <constraints>
	// attempt 2: LC_OK (LC_CLASS_OK), 163 bytes, stop end, removed unfence: 7 bytes before, 4 after
	// compacted: messages [0, 5) become a 152-byte summary; replacement verifies: true
}

// The same round with a streaming summariser (SPEC T17.6): each reply arrives in 16-byte chunks.
// The first dies at the "d" of "<decisions" (byte 53, in its 4th chunk): the round stops ranging
// there, so Chunks returns (a real one's defer closes the provider's stream) and Usage is never
// called; the attempt counts, with its diagnosis and retry message.
func ExampleCompactStream() {
	in, err := lc.ParseInput([]byte(roundDoc(roundMessages()...)))
	if err != nil {
		log.Fatal(err)
	}
	defer in.Close()
	replies := []string{roundRejected, "```xml\n" + roundSummary + "\n```"}
	callModel := func(ctx context.Context, req lc.SummaryRequest) (lc.SummaryReplyStream, error) {
		text := replies[req.Attempt-1]
		return lc.SummaryReplyStream{
			Chunks: func(yield func(string, error) bool) {
				read, total := 0, (len(text)+15)/16
				defer func() { fmt.Printf("stream %d: closed after %d of %d chunks\n", req.Attempt, read, total) }()
				for at := 0; at < len(text); at += 16 {
					read++
					if !yield(text[at:min(at+16, len(text))], nil) {
						return
					}
				}
			},
			Usage: func() (lc.SummaryUsage, error) { return lc.SummaryUsage{OutputTokens: 40, Stop: lc.StopEnd}, nil },
		}, nil
	}
	res, err := lc.CompactStream(context.Background(), in, callModel, lc.CompactOptions{
		KeepLast: 1,
		OnAttempt: func(a lc.Attempt) {
			fmt.Printf("attempt %d: %s, %d bytes, aborted %v", a.Number, a.Status.Name(), a.ReplyBytes, a.Aborted)
			if a.Diagnosis != nil {
				fmt.Printf(", line %d, column %d, expected %s", a.Diagnosis.Line, a.Diagnosis.Column, a.Diagnosis.Expected)
			}
			fmt.Println()
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	if r, ok := res.(*lc.Compacted); ok {
		fmt.Printf("compacted: a %d-byte summary\n", len(r.Summary))
	}
	// Output:
	// stream 1: closed after 4 of 8 chunks
	// attempt 1: LC_SUMMARY_XML_STRUCTURE, 64 bytes, aborted true, line 3, column 1, expected <constraints>
	// stream 2: closed after 11 of 11 chunks
	// attempt 2: LC_OK, 163 bytes, aborted false
	// compacted: a 152-byte summary
}
