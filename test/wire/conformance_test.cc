// The conformance corpus replayed over the wire (feature `routes`): one test per row of
// data/conformance_cases.tsv, named by its id, replayed as data/CONFORMANCE.md says (fresh
// connection, raw bytes, shut the write side, read until the daemon closes, compare the
// status class of the first response; a 405 carries Allow: GET, HEAD, OPTIONS; `close` means no
// 2xx and a close). With feature keepalive, a row whose bytes hold more requests than the
// first gets them answered too where the connection persists: its note declares how many
// responses arrive ("keep-alive: N responses"); every other row gets at most one.
#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

#include "test/wire/conformance_corpus.h"
#include "test/wire/wire_harness.h"

namespace wire {
namespace {

// Rows loaded at registration time (gtest evaluates ValuesIn when it registers the
// parametrized tests, after main has started). A load failure leaves the list empty and
// is reported by CorpusLoads.
const std::vector<ConformanceCase> &Corpus()
{
	static const std::vector<ConformanceCase> *cases = [] {
		auto *loaded = new std::vector<ConformanceCase>;
		std::string error;
		if (!LoadConformanceCases(ConformanceCorpusPath(), loaded, &error))
			loaded->clear();
		return loaded;
	}();
	return *cases;
}

} // namespace

// gtest prints a failing row by its id rather than as raw bytes (found by ADL).
void PrintTo(const ConformanceCase &c, std::ostream *os) { *os << c.id; }

namespace {

// The response count a row's note declares ("keep-alive: N responses"), or -1.
int DeclaredResponseCount(const std::string &note)
{
	static const std::string kMarker = "keep-alive: ";
	static const std::string kUnit = " responses";
	size_t at = note.find(kMarker);
	if (at == std::string::npos)
		return -1;
	at += kMarker.size();
	size_t digits = 0;
	while (at + digits < note.size() && isdigit(static_cast<unsigned char>(note[at + digits])))
		digits++;
	if (digits == 0 || note.compare(at + digits, kUnit.size(), kUnit) != 0)
		return -1;
	return atoi(note.c_str() + at);
}

Outcome ExpectedOutcome(const std::string &expected)
{
	if (expected == "2xx")
		return Outcome::kStatus2xx;
	if (expected == "400")
		return Outcome::kStatus400;
	if (expected == "404")
		return Outcome::kStatus404;
	if (expected == "405")
		return Outcome::kStatus405;
	return Outcome::kCloseNo2xx;
}

// gtest names allow letters, digits and underscores only.
std::string TestNameOf(const std::string &id)
{
	std::string name = id;
	for (char &c : name)
		if (!isalnum(static_cast<unsigned char>(c)))
			c = '_';
	return name;
}

TEST(ConformanceCorpus, LoadsEveryRow)
{
	std::string path = ConformanceCorpusPath();
	std::vector<ConformanceCase> cases;
	std::string error;
	ASSERT_TRUE(LoadConformanceCases(path, &cases, &error)) << error;
	EXPECT_EQ(static_cast<int>(cases.size()), CountCorpusDataLines(path));
	EXPECT_EQ(cases.size(), Corpus().size()) << "rows registered as tests";
	EXPECT_GE(cases.size(), 184u) << "the corpus has 184 rows";
}

TEST(ConformanceCorpus, UnescapesEveryEscapeForm)
{
	std::string out, error;
	ASSERT_TRUE(UnescapeCString("a\\r\\n\\t\\\\\\\"\\?\\000\\177\\377z", &out, &error))
		<< error;
	EXPECT_EQ(out, std::string("a\r\n\t\\\"?\0\177\377z", 11));
	EXPECT_FALSE(UnescapeCString("\\x41", &out, &error)) << "hex escapes are not in the format";
	EXPECT_FALSE(UnescapeCString("\\12", &out, &error)) << "octal escapes have three digits";
	EXPECT_FALSE(UnescapeCString("a\\", &out, &error));
}

class ConformanceTest : public SharedDaemonFixture<testing::TestWithParam<ConformanceCase>> {
protected:
	void SetUp() override
	{
		REQUIRE_FEATURE("routes");
		SharedDaemonFixture::SetUp();
	}
};

TEST_P(ConformanceTest, ReplayMatchesExpected)
{
	const ConformanceCase &c = GetParam();
	Received r = Roundtrip(port_, c.raw, /*shut_write=*/true);
	size_t responses;
	EXPECT_EQ(OutcomeProblem(r, ExpectedOutcome(c.expected), c.raw, &responses), "")
		<< c.id << " (" << c.source << ")\n  note: " << c.note << "\n  sent: '" << c.raw
		<< "'\n  got: '" << r.bytes.substr(0, 300) << "'";
	int declared = HasFeature("keepalive") ? DeclaredResponseCount(c.note) : -1;
	if (declared >= 0) {
		EXPECT_EQ(responses, static_cast<size_t>(declared))
			<< c.id << ": the note declares " << declared << "\n  got: '" << r.bytes << "'";
	} else {
		EXPECT_LE(responses, 1u) << c.id << ": more responses than the note declares (1)"
					 << "\n  note: " << c.note << "\n  got: '" << r.bytes << "'";
	}
}

TEST(ConformanceCorpus, DeclaredResponseCounts)
{
	EXPECT_EQ(DeclaredResponseCount("GAP: x | keep-alive: 2 responses (405, 405)"), 2);
	EXPECT_EQ(DeclaredResponseCount("keep-alive: 12 responses"), 12);
	EXPECT_EQ(DeclaredResponseCount("STRICT: R12 -> 405"), -1);
	EXPECT_EQ(DeclaredResponseCount("keep-alive: two responses"), -1);
	EXPECT_EQ(DeclaredResponseCount("keep-alive: 2 answers"), -1);
}

INSTANTIATE_TEST_SUITE_P(Corpus, ConformanceTest, testing::ValuesIn(Corpus()),
			 [](const testing::TestParamInfo<ConformanceCase> &param_info) {
				 return TestNameOf(param_info.param.id);
			 });

} // namespace
} // namespace wire
