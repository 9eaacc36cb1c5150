// SPDX-License-Identifier: Apache-2.0
// Configuration: parsing, ranges, YAML flattening and the places named in errors.
#include <gtest/gtest.h>

#include "fg_test.h"
#include "sim/config.h"
#include "sim/error.h"

namespace fg {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Config, DefaultsComeFromDeclarations) {
  Config cfg;
  EXPECT_EQ(std::get<std::uint64_t>(cfg.value("gpu.l1.size")), 16384u);
  EXPECT_EQ(cfg.origin("gpu.l1.size"), "default");
}

TEST(Config, ByteSuffixesAreBinaryMultiples) {
  Config cfg;
  cfg.set("gpu.l1.size", "16KiB", "t");
  EXPECT_EQ(std::get<std::uint64_t>(cfg.value("gpu.l1.size")), 16384u);
  cfg.set("gpu.l1.size", "32KB", "t");
  EXPECT_EQ(std::get<std::uint64_t>(cfg.value("gpu.l1.size")), 32768u);
  cfg.set("gpu.l2.size", "1M", "t");
  EXPECT_EQ(std::get<std::uint64_t>(cfg.value("gpu.l2.size")), 1u << 20);
  cfg.set("gpu.l2.size", "0x20000", "t");
  EXPECT_EQ(std::get<std::uint64_t>(cfg.value("gpu.l2.size")), 0x20000u);
}

TEST(Config, SuffixOnNonByteParameterIsAnError) {
  Config cfg;
  EXPECT_NE(error_of([&] { cfg.set("gpu.cus", "4K", "--set gpu.cus"); }).find("expected an integer"),
            std::string::npos);
}

TEST(Config, OutOfRangeNamesKeyAndRange) {
  Config cfg;
  std::string e = error_of([&] { cfg.set("gpu.cus", "0", "--set gpu.cus"); });
  EXPECT_NE(e.find("--set gpu.cus"), std::string::npos) << e;
  EXPECT_NE(e.find("out of range [1, 63]"), std::string::npos) << e;
}

TEST(Config, UnknownKeySuggestsNearestName) {
  Config cfg;
  std::string e = error_of([&] { cfg.set("gpu.l1.szie", "1", "x.yaml:3"); });
  EXPECT_NE(e.find("x.yaml:3: unknown parameter 'gpu.l1.szie'"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'gpu.l1.size'"), std::string::npos) << e;
}

TEST(Config, BoolAndEnumAndReal) {
  Config cfg;
  cfg.set("memstream.pattern", "copy", "t");
  EXPECT_EQ(std::get<std::string>(cfg.value("memstream.pattern")), "copy");
  EXPECT_NE(error_of([&] { cfg.set("memstream.pattern", "zigzag", "t"); }).find("expected one of"), std::string::npos);
  cfg.set("gpu.dram.latency", "12.5", "t");
  EXPECT_DOUBLE_EQ(std::get<double>(cfg.value("gpu.dram.latency")), 12.5);
  EXPECT_NE(error_of([&] { cfg.set("gpu.dram.latency", "12.5ns", "t"); }).find("expected a number"), std::string::npos);
  EXPECT_NE(error_of([&] { cfg.set("gpu.dram.latency", "nan", "t"); }).find("expected a number"), std::string::npos);
}

TEST(Config, YamlNestedMapsFlattenAndErrorsCarryLine) {
  Config cfg;
  cfg.apply_yaml("gpu:\n  l1:\n    ways: 8\n  cus: 2\n", "a.yaml");
  EXPECT_EQ(std::get<std::uint64_t>(cfg.value("gpu.l1.ways")), 8u);
  EXPECT_EQ(cfg.origin("gpu.cus"), "a.yaml:4");
  EXPECT_NE(error_of([&] {
              cfg.apply_yaml("gpu:\n  cus: 2\n  l1:\n    wayz: 8\n", "b.yaml");
            }).find("b.yaml:4: unknown parameter 'gpu.l1.wayz'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { cfg.apply_yaml("gpu:\n  cus: [1, 2]\n", "c.yaml"); }).find("c.yaml:2:"), std::string::npos);
  EXPECT_NE(error_of([&] { cfg.apply_yaml("gpu:\n  cus: 2\n bad: : :\n", "d.yaml"); }).find("d.yaml:"),
            std::string::npos);
}

TEST(Config, PresetsParseAndCiteTheirSource) {
  for (const auto& [name, p] : presets()) {
    Config cfg;
    EXPECT_NO_THROW(cfg.apply_yaml(p.text, p.source)) << name;
    EXPECT_NE(p.text.find("Table"), std::string::npos) << name << " must cite its source table";
    EXPECT_FALSE(preset_description(p).empty()) << name;
  }
  Config orr = test::make_config("orr2014");
  EXPECT_EQ(std::get<std::uint64_t>(orr.value("gpu.l2.size")), 1u << 20);
  EXPECT_DOUBLE_EQ(std::get<double>(orr.value("gpu.dram.bandwidth")), 20.0);
  Config kim = test::make_config("kim2014");
  EXPECT_EQ(std::get<std::uint64_t>(kim.value("gpu.l2.size")), 768u * 1024);
  EXPECT_DOUBLE_EQ(std::get<double>(kim.value("gpu.clock")), 700.0);
}

// An old name of a parameter sets the parameter (the stats show its own name).
TEST(Config, AnAliasSetsTheParameter) {
  Config cfg;
  cfg.set("aggregator.core", "simple", "--set aggregator.core");
  EXPECT_EQ(std::get<std::string>(cfg.value("ctrl.core")), "simple");
  EXPECT_EQ(cfg.origin("ctrl.core"), "--set aggregator.core");
  EXPECT_TRUE(cfg.set_by_user("ctrl.core"));
  EXPECT_FALSE(cfg.to_json().contains("aggregator.core"));
  EXPECT_EQ(ParamRegistry::global().aliases_of("ctrl.core"), std::vector<std::string>{"aggregator.core"});
}

}  // namespace
}  // namespace fg
