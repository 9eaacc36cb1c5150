// SPDX-License-Identifier: Apache-2.0
#include "sim/config.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "sim/error.h"

namespace fg {

const char* to_string(ParamType t) {
  switch (t) {
    case ParamType::Int:
      return "int";
    case ParamType::UInt:
      return "uint";
    case ParamType::Double:
      return "real";
    case ParamType::Bool:
      return "bool";
    case ParamType::String:
      return "string";
    case ParamType::Enum:
      return "enum";
  }
  return "?";
}

std::string format_value(const ParamInfo& info, const ParamValue& v) {
  (void)info;
  return std::visit(
      [](const auto& x) -> std::string {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, bool>)
          return x ? "true" : "false";
        else if constexpr (std::is_same_v<X, std::string>)
          return x;
        else if constexpr (std::is_same_v<X, double>)
          return fmt::format("{:g}", x);
        else
          return std::to_string(x);
      },
      v);
}

std::string format_bound(double x) {
  // Below 2^64 a whole double is printed exactly (9.2e18 as 9200000000000000000, as a 64-bit parameter holds it).
  return std::fabs(x) < 18446744073709551616.0 && x == std::floor(x) ? fmt::format("{:.0f}", x)
                                                                     : fmt::format("{:g}", x);
}

ParamRegistry& ParamRegistry::global() {
  static ParamRegistry r;
  return r;
}

void ParamRegistry::add(ParamInfo info) {
  // A second declaration of one name is a programming error: fail loudly at start-up.
  if (params_.count(info.name)) {
    std::fprintf(stderr, "fgsim: internal error: parameter '%s' declared twice\n", info.name.c_str());
    std::abort();
  }
  params_.emplace(info.name, std::move(info));
}

void ParamRegistry::add_alias(const std::string& old_name, const std::string& name) {
  if (aliases_.count(old_name) || params_.count(old_name)) {
    std::fprintf(stderr, "fgsim: internal error: alias '%s' declared twice or names a parameter\n", old_name.c_str());
    std::abort();
  }
  aliases_.emplace(old_name, name);
}

const std::string* ParamRegistry::alias_target(const std::string& name) const {
  auto it = aliases_.find(name);
  return it == aliases_.end() ? nullptr : &it->second;
}

std::vector<std::string> ParamRegistry::aliases_of(const std::string& name) const {
  std::vector<std::string> v;
  for (const auto& [old_name, target] : aliases_)
    if (target == name) v.push_back(old_name);
  return v;
}

const ParamInfo* ParamRegistry::find(const std::string& name) const {
  auto it = params_.find(name);
  return it == params_.end() ? nullptr : &it->second;
}

namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string ParamRegistry::suggest(const std::string& name) const {
  std::string best;
  std::size_t best_d = std::max<std::size_t>(3, name.size() / 4) + 1;
  for (const auto& [n, _] : params_) {
    std::size_t d = edit_distance(name, n);
    if (d < best_d) {
      best_d = d;
      best = n;
    }
  }
  return best;
}

namespace {

template <class T>
ParamType type_of() {
  if constexpr (std::is_same_v<T, std::int64_t>)
    return ParamType::Int;
  else if constexpr (std::is_same_v<T, std::uint64_t>)
    return ParamType::UInt;
  else if constexpr (std::is_same_v<T, double>)
    return ParamType::Double;
  else if constexpr (std::is_same_v<T, bool>)
    return ParamType::Bool;
  else
    return ParamType::String;
}

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string describe_range(const ParamInfo& info) {
  const auto f = format_bound;
  if (info.min && info.max) return fmt::format("[{}, {}]", f(*info.min), f(*info.max));
  if (info.min) return fmt::format(">= {}", f(*info.min));
  if (info.max) return fmt::format("<= {}", f(*info.max));
  return "";
}

// Integer text: decimal or 0x hex; byte-valued parameters also take K/M/G/T/P
// with an optional B or iB (binary multiples, as the papers' "16 KB" means
// 16384). `mag_out` gets the exact magnitude when there is no suffix;
// `too_big` is set, and false returned, for digits past 2^64 - 1 with a
// suffix the parameter takes (an integer, but none a parameter holds), with
// `neg_out` its sign.
bool parse_integer(const ParamInfo& info, const std::string& t, long double& out, unsigned long long& mag_out,
                   bool& neg_out, bool& too_big) {
  if (t.empty()) return false;
  std::size_t pos = 0;
  bool neg = false;
  if (t[0] == '-' || t[0] == '+') {
    neg = t[0] == '-';
    pos = 1;
  }
  int base = 10;
  if (t.size() > pos + 2 && t[pos] == '0' && (t[pos + 1] == 'x' || t[pos + 1] == 'X')) {
    base = 16;
    pos += 2;
  }
  std::size_t digits_end = pos;
  while (digits_end < t.size() && std::isxdigit(static_cast<unsigned char>(t[digits_end])) &&
         (base == 16 || std::isdigit(static_cast<unsigned char>(t[digits_end]))))
    ++digits_end;
  if (digits_end == pos) return false;
  errno = 0;
  unsigned long long mag = std::strtoull(t.substr(pos, digits_end - pos).c_str(), nullptr, base);
  const bool overflow = errno == ERANGE;
  std::string suffix = t.substr(digits_end);
  long double mult = 1;
  if (!suffix.empty()) {
    if (info.unit != "B") return false;
    std::string s = suffix;
    if (s == "B")
      s = "";
    else if (s.size() >= 2 && s.substr(s.size() - 2) == "iB")
      s = s.substr(0, s.size() - 2);
    else if (s.size() >= 1 && s.back() == 'B')
      s = s.substr(0, s.size() - 1);
    if (s == "K" || s == "k")
      mult = 1024.0L;
    else if (s == "M")
      mult = 1024.0L * 1024;
    else if (s == "G")
      mult = 1024.0L * 1024 * 1024;
    else if (s == "T")
      mult = 1024.0L * 1024 * 1024 * 1024;
    else if (s == "P")
      mult = 1024.0L * 1024 * 1024 * 1024 * 1024;
    else if (!s.empty())
      return false;
  }
  neg_out = neg;
  if (overflow) {
    too_big = true;
    return false;
  }
  out = (neg ? -1.0L : 1.0L) * static_cast<long double>(mag) * mult;
  mag_out = mult == 1 ? mag : 0;
  return true;
}

}  // namespace

ParamValue parse_value(const ParamInfo& info, const std::string& raw, const std::string& place) {
  const std::string t = trim(raw);
  auto fail = [&](const std::string& what) -> ParamValue {
    throw UserError(fmt::format("{}: {} for '{}', got '{}'", place, what, info.name, shown(raw)));
  };
  auto out_of_range = [&]() -> ParamValue {
    throw UserError(fmt::format("{}: value {} for '{}' is out of range {}{}", place, shown(t), info.name,
                                describe_range(info), info.unit.empty() ? "" : " " + info.unit));
  };
  auto check_range = [&](long double x) {
    if ((info.min && x < *info.min) || (info.max && x > *info.max)) out_of_range();
  };
  switch (info.type) {
    case ParamType::Int:
    case ParamType::UInt: {
      long double x = 0;
      unsigned long long mag = 0;
      bool neg = false, too_big = false;
      if (!parse_integer(info, t, x, mag, neg, too_big) && !too_big)
        return fail(info.unit == "B" ? "expected an integer number of bytes (e.g. 16384 or 16KiB)"
                                     : "expected an integer");
      const bool uint = info.type == ParamType::UInt;
      if (uint && neg && (too_big || x < 0)) return fail("expected a non-negative integer");
      // Past what the type holds (UInt takes the full 64-bit range, seeds;
      // Int the signed one): out of the range when the sign passes a bound,
      // else too large, not "expected an integer".
      if (too_big || (uint ? x > 18446744073709551615.0L : x > 9223372036854775807.0L || x < -9223372036854775808.0L)) {
        if ((!neg && info.max) || (neg && info.min)) return out_of_range();
        return fail(uint ? "integer too large (above 2^64 - 1)" : "integer too large");
      }
      check_range(x);
      if (uint) return mag ? static_cast<std::uint64_t>(mag) : static_cast<std::uint64_t>(x);
      return static_cast<std::int64_t>(x);
    }
    case ParamType::Double: {
      if (t.empty()) return fail("expected a number");
      char* end = nullptr;
      errno = 0;
      double x = std::strtod(t.c_str(), &end);
      if (end != t.c_str() + t.size() || errno == ERANGE || !std::isfinite(x)) return fail("expected a number");
      check_range(x);
      return x;
    }
    case ParamType::Bool: {
      std::string l = t;
      std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return std::tolower(c); });
      if (l == "true" || l == "1" || l == "yes" || l == "on") return true;
      if (l == "false" || l == "0" || l == "no" || l == "off") return false;
      return fail("expected true or false");
    }
    case ParamType::String:
      return t;
    case ParamType::Enum: {
      if (std::find(info.choices.begin(), info.choices.end(), t) == info.choices.end()) {
        std::string all;
        for (const auto& c : info.choices) all += (all.empty() ? "" : ", ") + c;
        return fail("expected one of {" + all + "}");
      }
      return t;
    }
  }
  return fail("unsupported type");
}

template <class T>
Param<T>::Param(std::string name, T def, std::string unit, std::string help, Range range) : name_(name) {
  ParamInfo info;
  info.name = std::move(name);
  info.type = type_of<T>();
  info.default_value = ParamValue(def);
  info.unit = std::move(unit);
  info.help = std::move(help);
  info.min = range.min;
  info.max = range.max;
  ParamRegistry::global().add(std::move(info));
}

template <class T>
Param<T>::Param(std::string name, T def, std::vector<std::string> choices, std::string help) : name_(name) {
  if constexpr (!std::is_same_v<T, std::string>) std::abort();  // enum parameters are strings
  ParamInfo info;
  info.name = std::move(name);
  info.type = ParamType::Enum;
  info.default_value = ParamValue(def);
  info.help = std::move(help);
  info.choices = std::move(choices);
  ParamRegistry::global().add(std::move(info));
}

template <class T>
T Param<T>::get(const Config& cfg) const {
  return std::get<T>(cfg.value(name_));
}

template class Param<std::int64_t>;
template class Param<std::uint64_t>;
template class Param<double>;
template class Param<bool>;
template class Param<std::string>;

Config::Config() {
  for (const auto& [name, info] : ParamRegistry::global().all()) entries_[name] = Entry{info.default_value, "default"};
}

void Config::set(const std::string& given, const std::string& text, const std::string& origin, bool preset) {
  const std::string* target = ParamRegistry::global().alias_target(given);
  const std::string& key = target ? *target : given;
  const ParamInfo* info = ParamRegistry::global().find(key);
  if (!info) {
    std::string hint = ParamRegistry::global().suggest(key);
    throw UserError(fmt::format("{}: unknown parameter '{}'{} (see `fgsim params`)", origin, shown(key),
                                hint.empty() ? "" : fmt::format("; did you mean '{}'?", hint)));
  }
  entries_[key] = Entry{parse_value(*info, text, origin), origin, preset};
}

void Config::apply_assignment(const std::string& a) {
  auto eq = a.find('=');
  if (eq == std::string::npos || eq == 0) throw UserError(fmt::format("--set '{}': expected key=value", shown(a)));
  std::string key = trim(a.substr(0, eq));
  set(key, a.substr(eq + 1), fmt::format("--set {}", shown(key)));
}

namespace {

// Bounds on what a config file may expand to: YAML aliases can refer to
// themselves (a cycle) or double at every level (an exponential expansion).
// Parameter names have at most a handful of levels, and the whole registry
// has a few hundred parameters.
constexpr int kMaxDepth = 16;
std::size_t full_length(const std::string& prefix, const std::string& k) { return prefix.size() + 1 + k.size(); }
constexpr std::size_t kMaxItems = 10000;

void flatten(const YAML::Node& node, const std::string& prefix, const std::string& source,
             std::vector<std::tuple<std::string, std::string, int>>& out, int depth = 0) {
  auto line = [&](const YAML::Node& n) { return n.Mark().line + 1; };
  if (depth > kMaxDepth)
    throw UserError(fmt::format("{}:{}: '{}' nests more than {} levels (a YAML alias that refers to itself?)", source,
                                line(node), shown(prefix), kMaxDepth));
  if (node.IsMap()) {
    for (const auto& kv : node) {
      if (!kv.first.IsScalar()) throw UserError(fmt::format("{}:{}: keys must be plain names", source, line(kv.first)));
      std::string k = kv.first.as<std::string>();
      if (full_length(prefix, k) > 256)
        throw UserError(
            fmt::format("{}:{}: parameter name too long: '{}'", source, line(kv.first), shown(prefix + "." + k)));
      std::string full = prefix.empty() ? k : prefix + "." + k;
      if (prefix.empty() && k == "description") continue;  // preset description, not a parameter
      if (kv.second.IsMap()) {
        flatten(kv.second, full, source, out, depth + 1);
      } else if (kv.second.IsScalar()) {
        if (out.size() >= kMaxItems)
          throw UserError(fmt::format("{}:{}: more than {} settings (YAML aliases expanding without bound?)", source,
                                      line(kv.first), kMaxItems));
        out.emplace_back(full, kv.second.Scalar(), line(kv.first));
      } else if (kv.second.IsNull()) {
        throw UserError(fmt::format("{}:{}: '{}' has no value", source, line(kv.first), shown(full)));
      } else {
        throw UserError(
            fmt::format("{}:{}: '{}' must be a single value, not a list", source, line(kv.first), shown(full)));
      }
    }
  } else if (!node.IsNull()) {
    throw UserError(fmt::format("{}:{}: expected a map of parameters", source, line(node)));
  }
}

}  // namespace

namespace {

// Parser events of one document: only where it starts matters.
struct DocumentMarks : YAML::EventHandler {
  YAML::Mark start;
  bool started = false;
  void OnDocumentStart(const YAML::Mark& m) override {
    if (!started) start = m, started = true;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// A quoted scalar whose closing quote is missing: yaml-cpp accepts `x: "4` in
// block context and reads it as the text up to the end of the file.
void check_quotes(const YAML::Node& node, const std::string& text, const std::string& source) {
  if (node.IsMap()) {
    for (const auto& kv : node) check_quotes(kv.second, text, source);
    return;
  }
  if (!node.IsScalar()) return;
  const YAML::Mark m = node.Mark();
  if (m.pos < 0 || static_cast<std::size_t>(m.pos) >= text.size()) return;
  const char q = text[static_cast<std::size_t>(m.pos)];
  if (q != '"' && q != '\'') return;
  for (std::size_t i = static_cast<std::size_t>(m.pos) + 1; i < text.size(); ++i) {
    if (q == '"' && text[i] == '\\') {
      ++i;
      continue;
    }
    if (text[i] == q) {
      if (q == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {  // '' inside single quotes
        ++i;
        continue;
      }
      return;
    }
  }
  throw UserError(fmt::format("{}:{}: unterminated quoted value", source, m.line + 1));
}

}  // namespace

void Config::apply_yaml(const std::string& yaml_text, const std::string& source, bool preset) {
  YAML::Node root;
  try {
    // One document: a second one (after `---`, or text after `...`) would be
    // ignored by a plain load, so it is an error here. Counted with the
    // event parser, two documents at most: yaml-cpp 0.7's LoadAll loops
    // forever on some malformed input (found by fuzzing).
    {
      std::istringstream in(yaml_text);
      YAML::Parser parser(in);
      DocumentMarks first, second;
      if (parser.HandleNextDocument(first) && parser.HandleNextDocument(second))
        throw UserError(fmt::format("{}:{}: a second YAML document (after '---' or '...'); a config file holds one",
                                    source, second.start.line + 1));
    }
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw UserError(fmt::format("{}:{}: YAML syntax error: {}", source, e.mark.line + 1, shown(e.msg, 200)));
  }
  std::vector<std::tuple<std::string, std::string, int>> items;
  flatten(root, "", source, items);
  check_quotes(root, yaml_text, source);
  // A key given twice in one file is a mistake (YAML parsers keep one silently).
  std::map<std::string, int> first;
  for (const auto& [key, text, line] : items)
    if (auto [it, fresh] = first.emplace(key, line); !fresh)
      throw UserError(fmt::format("{}:{}: '{}' given twice (first at line {})", source, line, shown(key), it->second));
  for (const auto& [key, text, line] : items) set(key, text, fmt::format("{}:{}", source, line), preset);
}

void Config::apply_yaml_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError(fmt::format("{}: cannot read config file ({})", shown(path, 200), std::strerror(errno)));
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw UserError(fmt::format("{}: cannot read config file", shown(path, 200)));
  apply_yaml(ss.str(), path);
}

const ParamValue& Config::value(const std::string& key) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) throw std::logic_error("undeclared parameter read: " + key);
  return it->second.value;
}

bool Config::set_by_user(const std::string& key) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) throw std::logic_error("undeclared parameter read: " + key);
  return it->second.origin != "default" && !it->second.preset;
}

const std::string& Config::origin(const std::string& key) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) throw std::logic_error("undeclared parameter read: " + key);
  return it->second.origin;
}

nlohmann::ordered_json Config::to_json() const {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& kv : entries_) {  // (clang 14 cannot capture a structured binding)
    const std::string& k = kv.first;
    std::visit([&](const auto& x) { j[k] = x; }, kv.second.value);
  }
  return j;
}

}  // namespace fg
