// A test's environment block: words kept alive with a NULL-terminated envp over them, as
// the kernel passes one to _start (activation_test.cc, reload_test.cc).
#ifndef APOLLOD_TEST_UNIT_ENVIRONMENT_H
#define APOLLOD_TEST_UNIT_ENVIRONMENT_H

#include <string>
#include <vector>

class Environment {
public:
	explicit Environment(const std::vector<std::string> &words) : words_(words)
	{
		for (std::string &w : words_)
			envp_.push_back(w.data());
		envp_.push_back(nullptr);
	}
	char **envp() { return envp_.data(); }

private:
	std::vector<std::string> words_;
	std::vector<char *> envp_;
};

#endif // APOLLOD_TEST_UNIT_ENVIRONMENT_H
