// A parameterised case's test name from its human label: every byte that is not a letter
// or digit becomes '_' (GoogleTest accepts only those in names).
#ifndef APOLLOD_TEST_UNIT_LABEL_NAME_H
#define APOLLOD_TEST_UNIT_LABEL_NAME_H

#include <cctype>
#include <string>

#include "gtest/gtest.h"

template <typename Case>
std::string LabelName(const testing::TestParamInfo<Case> &info)
{
	std::string name;
	for (const char *p = info.param.label; *p; p++)
		name += isalnum((unsigned char)*p) ? *p : '_';
	return name;
}

#endif // APOLLOD_TEST_UNIT_LABEL_NAME_H
