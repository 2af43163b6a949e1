// The conformance corpus (see conformance_corpus.h).
#include "test/wire/conformance_corpus.h"

#include "test/wire/wire_harness.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace wire {
namespace {

constexpr int kColumns = 5;
constexpr int kOctalDigits = 3;

bool IsOctalDigit(char c) { return c >= '0' && c <= '7'; }

// Splits line at tabs.
std::vector<std::string> SplitTabs(const std::string &line)
{
	std::vector<std::string> columns;
	std::stringstream in(line);
	std::string column;
	while (std::getline(in, column, '\t'))
		columns.push_back(column);
	return columns;
}

} // namespace

bool UnescapeCString(const std::string &literal, std::string *out, std::string *error)
{
	out->clear();
	for (size_t i = 0; i < literal.size(); i++) {
		char c = literal[i];
		if (c != '\\') {
			out->push_back(c);
			continue;
		}
		if (++i == literal.size()) {
			*error = "escape at end of literal";
			return false;
		}
		switch (literal[i]) {
		case 'r': out->push_back('\r'); break;
		case 'n': out->push_back('\n'); break;
		case 't': out->push_back('\t'); break;
		case '\\': out->push_back('\\'); break;
		case '"': out->push_back('"'); break;
		case '?': out->push_back('?'); break;
		default: {
			int value = 0;
			for (int k = 0; k < kOctalDigits; k++, i++) {
				if (i >= literal.size() || !IsOctalDigit(literal[i])) {
					*error = "bad escape at byte " + std::to_string(i);
					return false;
				}
				value = value * 8 + (literal[i] - '0');
			}
			i--; // the loop's i++ steps past the last digit
			if (value > 0xff) {
				*error = "octal escape over \\377";
				return false;
			}
			out->push_back(static_cast<char>(value));
		}
		}
	}
	return true;
}

std::string ConformanceCorpusPath()
{
	return RunfilePath("test/wire/data/conformance_cases.tsv");
}

bool LoadConformanceCases(const std::string &path, std::vector<ConformanceCase> *out,
			  std::string *error)
{
	std::ifstream in(path);
	if (!in) {
		*error = "cannot open " + path;
		return false;
	}
	std::string line;
	std::getline(in, line); // header
	for (int line_no = 2; std::getline(in, line); line_no++) {
		std::vector<std::string> col = SplitTabs(line);
		std::string where = path + ":" + std::to_string(line_no) + ": ";
		if (static_cast<int>(col.size()) != kColumns) {
			*error = where + std::to_string(col.size()) + " columns";
			return false;
		}
		ConformanceCase c;
		c.id = col[0];
		c.source = col[1];
		c.expected = col[3];
		c.note = col[4];
		std::string escape_error;
		if (!UnescapeCString(col[2], &c.raw, &escape_error)) {
			*error = where + escape_error;
			return false;
		}
		if (c.expected != "2xx" && c.expected != "400" && c.expected != "404" &&
		    c.expected != "405" && c.expected != "close") {
			*error = where + "unknown expected '" + c.expected + "'";
			return false;
		}
		out->push_back(c);
	}
	return true;
}

int CountCorpusDataLines(const std::string &path)
{
	std::ifstream in(path);
	if (!in)
		return -1;
	int lines = 0;
	std::string line;
	while (std::getline(in, line))
		lines++;
	return lines - 1;
}

} // namespace wire
