// The conformance corpus (data/conformance_cases.tsv, described in data/CONFORMANCE.md):
// loading its rows and decoding the C-string-literal escapes of the raw column.
#ifndef APOLLOD_TEST_WIRE_CONFORMANCE_CORPUS_H
#define APOLLOD_TEST_WIRE_CONFORMANCE_CORPUS_H

#include <string>
#include <vector>

namespace wire {

// One row of the corpus.
struct ConformanceCase {
	std::string id;       // stable name, e.g. llhttp-connection-01
	std::string source;   // repository@commit:path:line
	std::string raw;      // the request bytes, escapes decoded
	std::string expected; // 2xx, 400, 404, 405 or close
	std::string note;     // the rule that decides it
};

// Decodes a C string literal body (\r \n \t \\ \" \? and three-digit octal escapes; any
// other byte stands for itself). Returns false with *error on any other escape.
bool UnescapeCString(const std::string &literal, std::string *out, std::string *error);

// Where the corpus is: $TEST_SRCDIR/apollod/test/wire/data/conformance_cases.tsv inside
// bazel's runfiles tree, else the path relative to the workspace root.
std::string ConformanceCorpusPath();

// Loads every row of the corpus at path (the header line is skipped). Returns false with
// *error on a missing file, a row without five tab-separated columns, a bad escape or an
// unknown expected value.
bool LoadConformanceCases(const std::string &path, std::vector<ConformanceCase> *out,
			  std::string *error);

// The data lines of the file at path (every line but the header), or -1 if unreadable:
// an independent count the loaded rows are checked against.
int CountCorpusDataLines(const std::string &path);

} // namespace wire

#endif // APOLLOD_TEST_WIRE_CONFORMANCE_CORPUS_H
