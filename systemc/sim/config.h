// SPDX-License-Identifier: Apache-2.0
// Parameters and configuration.
//
// Every parameter is declared once, by the module that owns it, as a namespace-
// scope fg::Param<T> (name, default, unit, help, range). Declarations register
// themselves in the ParamRegistry at static-initialization time, so `fgsim
// params` lists them all without building a machine. A Config holds the
// resolved values: defaults, then a preset, then config files, then --set
// overrides, each value remembering where it came from. Reading a parameter
// goes through its handle: `kL1Size.get(cfg)`.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace fg {

enum class ParamType { Int, UInt, Double, Bool, String, Enum };
const char* to_string(ParamType t);

using ParamValue = std::variant<std::int64_t, std::uint64_t, double, bool, std::string>;

struct ParamInfo {
  std::string name;
  ParamType type = ParamType::Int;
  ParamValue default_value;
  std::string unit;  // "B", "cycles", "ns", "MHz", "GB/s", "" ...
  std::string help;
  std::optional<double> min, max;    // inclusive numeric bounds
  std::vector<std::string> choices;  // Enum only
};

std::string format_value(const ParamInfo& info, const ParamValue& v);
// A parameter's bound as messages and `fgsim params` show it: a whole number
// in full (1048576, not 1.04858e+06), any other as %g.
std::string format_bound(double x);

class ParamRegistry {
 public:
  static ParamRegistry& global();
  void add(ParamInfo info);
  const ParamInfo* find(const std::string& name) const;
  const std::map<std::string, ParamInfo>& all() const { return params_; }
  // Closest declared name (for "did you mean"), empty if none is close.
  std::string suggest(const std::string& name) const;
  // An old name accepted for a parameter (a config file or --set with it sets
  // the parameter); the stats show the parameter's own name.
  void add_alias(const std::string& old_name, const std::string& name);
  // The parameter `name` stands for when it is an alias, else nullptr.
  const std::string* alias_target(const std::string& name) const;
  // The aliases of parameter `name`.
  std::vector<std::string> aliases_of(const std::string& name) const;

 private:
  std::map<std::string, ParamInfo> params_;
  std::map<std::string, std::string> aliases_;  // old name -> parameter
};

// Declares an old name of a parameter (namespace scope, like Param).
struct ParamAlias {
  ParamAlias(const std::string& old_name, const std::string& name) {
    ParamRegistry::global().add_alias(old_name, name);
  }
};

struct Range {
  std::optional<double> min, max;
};

class Config;

// Typed handle of a declared parameter. T is one of int64_t, uint64_t, double,
// bool, std::string.
template <class T>
class Param {
 public:
  Param(std::string name, T def, std::string unit, std::string help, Range range = {});
  // Enum parameter: T must be std::string, `def` one of `choices`.
  Param(std::string name, T def, std::vector<std::string> choices, std::string help);
  T get(const Config& cfg) const;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

// Resolved configuration.
class Config {
 public:
  Config();  // all defaults

  // Parse `text` for parameter `key` and store it; `origin` names the place
  // for error messages ("--set", "file.yaml:12"). Throws UserError.
  void set(const std::string& key, const std::string& text, const std::string& origin, bool preset = false);
  // Apply a YAML document (nested maps flatten to dotted keys). `source` is the
  // file name used in messages. Throws UserError with file:line. `preset`: a
  // machine preset of models/presets (its values describe the machine, not
  // the run: set_by_user() is false for them).
  void apply_yaml(const std::string& yaml_text, const std::string& source, bool preset = false);
  void apply_yaml_file(const std::string& path);
  // `--set key=value`.
  void apply_assignment(const std::string& assignment);

  const ParamValue& value(const std::string& key) const;
  const std::string& origin(const std::string& key) const;
  bool is_default(const std::string& key) const { return origin(key) == "default"; }
  // Set by the user (--set, --seed, --input, a config file), not a default or
  // a preset's value.
  bool set_by_user(const std::string& key) const;

  // Flat {name: value} of every parameter, sorted by name.
  nlohmann::ordered_json to_json() const;

 private:
  struct Entry {
    ParamValue value;
    std::string origin;
    bool preset = false;
  };
  std::map<std::string, Entry> entries_;
};

// Parse text as a value of `info`'s type and range. Throws UserError whose
// message starts with `place`.
ParamValue parse_value(const ParamInfo& info, const std::string& text, const std::string& place);

}  // namespace fg
