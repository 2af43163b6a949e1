// A seeded, bounded fuzz of Accept-Encoding forms against a running daemon (BEHAVIOUR
// 10.10): random codings (known, unknown, junk tokens, `*`, `identity`), case, q-values
// valid and malformed, OWS and empty members, parameters other than q, bytes after a
// member, and the field repeated over several lines; with HEAD, If-None-Match of some
// representation's ETag and a Range now and then. Each answer is checked against a model
// of RFC 9110 12.5.3 written here (a regular expression per member, not the daemon's
// scanner): the representation served (Content-Encoding and body), Vary, 304 exactly when
// the ETag sent is the chosen one's, 206 a slice of its bytes, and never a status other
// than 200, 206 or 304 (the daemon never answers 406: BEHAVIOUR 10.10).
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test/wire/wire_harness.h"

namespace wire {
namespace {

// The request count and seed of the run: fixed, so a failure replays.
constexpr int kRequests = 400;
constexpr uint64_t kSeed = 0x29ae;

// The codings a variant beside a file can have, in BEHAVIOUR 10.10's order of preference
// on a tie, with the file name suffix and ETag suffix of each.
struct Coding {
	const char *name, *suffix, *etag_suffix;
};
const Coding kCodings[] = {{"br", ".br", "-br"}, {"zstd", ".zst", "-zst"}, {"gzip", ".gz", "-gz"}};
constexpr int kCodingCount = sizeof(kCodings) / sizeof(kCodings[0]);

// The served files and which variants sit beside each (bit i: kCodings[i]). Every body is
// under 256 bytes, so the daemon makes no gzip of its own (BEHAVIOUR 10.10).
const std::vector<std::pair<std::string, unsigned>> kBases = {
	{"all.css", 7u}, {"brgz.js", 5u}, {"zst.txt", 2u}, {"gz.html", 4u}, {"none.txt", 0u},
};

// What one Accept-Encoding member says, per the model: the coding (lower-cased; x-gzip
// as gzip) and its weight in thousandths, or nothing when the member is not
// `token [ OWS ";" OWS "q=" qvalue ]` with OWS around it (RFC 9110 12.5.3, 12.4.2).
bool ModelMember(const std::string &member, std::string *coding, int *q)
{
	static const std::regex form(
		"[ \t]*([^ \t,;]+)(?:[ \t]*;[ \t]*[qQ]=(0(?:\\.[0-9]{0,3})?|1(?:\\.0{0,3})?))?[ \t]*");
	std::smatch m;
	if (!std::regex_match(member, m, form))
		return false;
	*coding = m[1].str();
	for (auto &c : *coding)
		c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
	if (*coding == "x-gzip")
		*coding = "gzip";
	*q = 1000;
	if (m[2].matched) { // "0", "1", "0.", "0.5", "0.125": the digit, then up to 3 decimals
		std::string v = m[2].str(), decimals = v.size() > 2 ? v.substr(2) : "";
		*q = (v[0] - '0') * 1000 + std::stoi((decimals + "000").substr(0, 3));
	}
	return true;
}

// The weight of each coding the lines name, the last naming winning; "*" for the rest.
std::map<std::string, int> ModelWeights(const std::vector<std::string> &lines)
{
	std::map<std::string, int> w;
	for (const auto &line : lines) {
		size_t at = 0;
		for (;;) {
			size_t comma = line.find(',', at);
			size_t len = comma == std::string::npos ? std::string::npos : comma - at;
			std::string member = line.substr(at, len);
			std::string coding;
			int q;
			if (member.find_first_not_of(" \t") != std::string::npos && ModelMember(member, &coding, &q))
				w[coding] = q;
			if (comma == std::string::npos)
				break;
			at = comma + 1;
		}
	}
	return w;
}

// The index in kCodings of the representation to serve, or -1 for identity: the highest
// weight above 0 among the variants there are (a coding not named weighs what `*` does),
// the earlier on a tie; identity when none, when the request names no Accept-Encoding,
// or when identity is named with a higher weight than the best.
int ModelChoice(const std::vector<std::string> &lines, unsigned available)
{
	std::map<std::string, int> w = ModelWeights(lines);
	int best = -1, best_q = 0;
	for (int i = 0; i < kCodingCount; i++) {
		auto named = w.find(kCodings[i].name);
		int q = named != w.end() ? named->second : w.count("*") ? w["*"] : -1;
		if ((available >> i & 1u) && q > best_q) {
			best = i;
			best_q = q;
		}
	}
	return w.count("identity") && w["identity"] > best_q ? -1 : best;
}

// Builds random Accept-Encoding values from rng.
class FormMaker {
public:
	explicit FormMaker(uint64_t seed) : rng_(seed) {}
	int Pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
	bool Chance(int percent) { return Pick(100) < percent; }

	std::string Value()
	{
		std::string v = Ows();
		for (int n = Pick(5), i = 0; i <= n; i++)
			v += (i ? Ows() + "," + Ows() : "") + (Chance(8) ? "" : Member());
		return v + Ows();
	}

private:
	std::string Ows()
	{
		static const char *const kOws[] = {"", "", "", " ", "\t", "  ", " \t"};
		return kOws[Pick(7)];
	}
	std::string Name()
	{
		static const char *const kNames[] = {"br", "zstd", "gzip", "x-gzip", "identity", "*",
						     "deflate", "compress", "x-zstd", "gz", "brotli",
						     "zst", "identity;", "q=1"};
		std::string n = Chance(12) ? Junk() : kNames[Pick(14)];
		for (auto &c : n)
			if (Chance(20))
				c = static_cast<char>(toupper(static_cast<unsigned char>(c)));
		return n;
	}
	std::string Junk()
	{
		static const char kTchar[] = "abcxyz019!#$%&'*+-.^_`|~\"/()<>@[]{}?=";
		std::string j;
		for (int n = 1 + Pick(6), i = 0; i < n; i++)
			j += kTchar[Pick(sizeof(kTchar) - 1)];
		return j;
	}
	std::string Qvalue()
	{
		static const char *const kValid[] = {"0", "1", "0.", "1.", "0.5", "0.25", "0.125",
						     "0.001", "0.999", "1.0", "1.000", "0.000", "0.50"};
		static const char *const kBad[] = {"1.5", "2", "0.1234", "-1", "", "1.001", ".5",
						   "0,5", "0.5x", "01", " 1", "1 ", "0.5 5"};
		return Chance(80) ? kValid[Pick(13)] : kBad[Pick(13)];
	}
	std::string Member()
	{
		std::string m = Name();
		if (Chance(60))
			m += Ows() + ";" + Ows() + (Chance(15) ? "Q=" : "q=") + Qvalue();
		if (Chance(5))
			m += Ows() + ";" + Ows() + (Chance(50) ? "level=1" : "q=1");
		if (Chance(4))
			m += " " + Junk();
		return m;
	}

	std::mt19937_64 rng_;
};

class AcceptEncodingFuzz : public testing::Test {
protected:
	void SetUp() override
	{
		REQUIRE_FEATURE("files");
		std::vector<std::pair<std::string, std::string>> files;
		for (const auto &b : kBases) {
			files.push_back({b.first, "identity of " + b.first + "\n"});
			for (int i = 0; i < kCodingCount; i++)
				if (b.second >> i & 1u)
					files.push_back({b.first + kCodings[i].suffix,
							 std::string(kCodings[i].name) + " of " + b.first});
		}
		for (const auto &f : files)
			body_[f.first] = f.second;
		root_.reset(new FileRoot(files));
		ASSERT_NE(root_->dir(), "");
		START_DAEMON(daemon_, DaemonOptions{{"--root", root_->dir()}});
	}
	// The file a representation's bytes come from, and the ETag it is served with.
	std::string Stored(const std::string &base, int coding) const
	{
		return coding < 0 ? base : base + kCodings[coding].suffix;
	}
	std::string Etag(const std::string &base, int coding) const
	{
		std::string e = ValidatorsOf(root_->dir() + "/" + Stored(base, coding)).etag;
		return coding < 0 ? e : e.substr(0, e.size() - 1) + kCodings[coding].etag_suffix + "\"";
	}

	std::unique_ptr<FileRoot> root_;
	std::map<std::string, std::string> body_;
	Daemon daemon_;
};

// One request of the run, and what the model says of it.
struct Trial {
	std::string base, request, range_field;
	std::vector<std::string> lines;
	bool head = false;
	int chosen = -1;       // the model's choice: an index in kCodings, -1 for identity
	int sent_etag_of = -2; // the representation whose ETag If-None-Match names; -2: none
	size_t first = 0, last = 0;
};

// Checks one response r to trial t against the model: vary when the file has variants,
// body and etag the chosen representation's. Returns "" or what is wrong.
std::string Problem(const Trial &t, const HttpResponse &r, bool vary, const std::string &body,
		    const std::string &etag)
{
	const int chosen = t.chosen;
	if (!r.parsed)
		return "unparsable: " + r.error;
	if (r.status != 200 && r.status != 206 && r.status != 304)
		return "status " + std::to_string(r.status);
	bool not_modified = t.sent_etag_of != -2 && t.sent_etag_of == chosen;
	bool partial = !not_modified && !t.head && !t.range_field.empty();
	int want = not_modified ? 304 : partial ? 206 : 200;
	if (r.status != want)
		return "status " + std::to_string(r.status) + ", the model says " + std::to_string(want);
	if (r.Header("ETag") != etag)
		return "ETag " + r.Header("ETag") + ", the chosen one's is " + etag;
	if ((r.Header("Vary") == "Accept-Encoding") != vary)
		return "Vary: '" + r.Header("Vary") + "'";
	if (want == 304)
		return "";
	if (r.Header("Content-Encoding") != (chosen < 0 ? "" : kCodings[chosen].name))
		return "Content-Encoding '" + r.Header("Content-Encoding") + "', the model says " +
		       (chosen < 0 ? "identity" : kCodings[chosen].name);
	std::string want_body = t.head ? "" : partial ? body.substr(t.first, t.last - t.first + 1) : body;
	return r.body == want_body ? "" : "body '" + r.body + "'";
}

// Makes request n's trial for the file b from make: its Accept-Encoding lines, HEAD or GET,
// now and then an If-None-Match of one of the file's representations and a Range inside
// the chosen one's body.
Trial MakeTrial(FormMaker &make, const std::pair<std::string, unsigned> &b,
		const std::function<std::string(int)> &etag_of, const std::function<size_t(int)> &size_of)
{
	Trial t;
	t.base = b.first;
	t.head = make.Chance(15);
	std::string fields;
	for (int lines = make.Pick(4), i = 0; i < lines; i++) {
		t.lines.push_back(make.Value());
		fields += std::string(make.Chance(20) ? "ACCEPT-encoding" : "Accept-Encoding") + ":" +
			  (make.Chance(70) ? " " : "") + t.lines.back() + "\r\n";
	}
	t.chosen = ModelChoice(t.lines, b.second);
	if (make.Chance(20)) {
		int of = make.Pick(kCodingCount + 1) - 1;
		if (of < 0 || (b.second >> of & 1u)) {
			t.sent_etag_of = of;
			fields += "If-None-Match: " + etag_of(of) + "\r\n";
		}
	}
	if (make.Chance(20)) {
		size_t size = size_of(t.chosen);
		t.first = static_cast<size_t>(make.Pick(static_cast<int>(size)));
		t.last = std::min(size - 1, t.first + static_cast<size_t>(make.Pick(8)));
		t.range_field = "Range: bytes=" + std::to_string(t.first) + "-" + std::to_string(t.last);
		fields += t.range_field + "\r\n";
	}
	t.request = std::string(t.head ? "HEAD" : "GET") + " /" + t.base + " HTTP/1.1\r\nHost: x\r\n" +
		    fields + "\r\n";
	return t;
}

TEST_F(AcceptEncodingFuzz, EveryFormGetsTheModelsRepresentation)
{
	FormMaker make(kSeed);
	Client client(daemon_.port());
	ASSERT_TRUE(client.connected());
	std::map<int, int> chosen_count; // the model's choices, to show the run covered them
	for (int n = 0; n < kRequests; n++) {
		const auto &b = kBases[make.Pick(static_cast<int>(kBases.size()))];
		Trial t = MakeTrial(
			make, b, [&](int of) { return Etag(b.first, of); },
			[&](int of) { return body_[Stored(b.first, of)].size(); });
		ASSERT_TRUE(client.Send(t.request)) << t.request;
		std::string raw = client.TakeResponse(t.head);
		ASSERT_NE(raw, "") << "no response to request " << n << ":\n" << t.request;
		std::string problem = Problem(t, ParseResponse(WithoutDates(raw)), b.second != 0,
					      body_[Stored(b.first, t.chosen)], Etag(b.first, t.chosen));
		ASSERT_EQ(problem, "") << "request " << n << " (seed " << kSeed << "):\n"
				       << t.request << "response:\n" << raw;
		chosen_count[t.chosen]++;
	}
	for (int c = -1; c < kCodingCount; c++)
		EXPECT_GT(chosen_count[c], 0)
			<< "the run never chose " << (c < 0 ? "identity" : kCodings[c].name);
}

// The model against forms whose answer BEHAVIOUR 10.10 spells out, so the model is
// checked too, not only the daemon against it.
TEST(AcceptEncodingModel, KnownForms)
{
	const struct {
		std::vector<std::string> lines;
		unsigned available;
		int want;
	} cases[] = {
		{{}, 7u, -1},
		{{"gzip, deflate, br, zstd"}, 7u, 0},
		{{"gzip, deflate, br, zstd"}, 6u, 1},
		{{"GZIP;Q=0.5, x-gzip;q=0.6"}, 7u, 2},
		{{"br;q=0, *"}, 7u, 1},
		{{"*;q=0"}, 7u, -1},
		{{"identity, br;q=0.999"}, 7u, -1},
		{{"identity;q=0.5, zstd;q=0.5"}, 7u, 1},
		{{"br;q=1.5, gzip"}, 7u, 2},
		{{"br;level=1"}, 7u, -1},
		{{"br x"}, 7u, -1},
		{{"br", "br;q=0"}, 7u, -1},
		{{" , ,zstd ;\tq=0.25,"}, 7u, 1},
		{{"gzip;q=0.", "zstd;q=0.001"}, 7u, 1},
	};
	for (const auto &c : cases) {
		std::string label;
		for (const auto &l : c.lines)
			label += "[" + l + "]";
		EXPECT_EQ(ModelChoice(c.lines, c.available), c.want) << label;
	}
}

} // namespace
} // namespace wire
