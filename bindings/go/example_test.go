package loopcompact_test

import (
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
