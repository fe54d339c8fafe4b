// Package chatlog reads chat logs in the formats users arrive with — JSONL of
// messages, OpenAI-style message arrays, a ChatGPT data export
// (conversations.json) and LoCoMo — as a stream of Records, in constant memory
// whatever the file size: JSONL is read line by line with a line-size cap and
// JSON arrays are token-streamed one element at a time.
//
// Every record carries its source position (line number, or array item and
// message ordinal) so errors point at the input, and a stable message id (the
// source's, or a hash of namespace, thread, position and content) so
// importing the same file twice stores every message once.
//
// Open sniffs the format (or takes it from Options.Format); Reader.Next returns
// records until io.EOF. A *RecordError is one bad record: report it and call
// Next again. Any other error ends the stream (an I/O failure, or a syntax
// error inside a JSON array, after which no element boundary can be trusted).
package chatlog
