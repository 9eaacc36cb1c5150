// SPDX-License-Identifier: Apache-2.0
#include "gpu/mechanism.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>

#include <fmt/format.h>

namespace fg {

MechanismRegistry& MechanismRegistry::global() {
  static MechanismRegistry r;
  return r;
}

void MechanismRegistry::add(MechanismInfo m) {
  if (all_.count(m.name)) {
    std::fprintf(stderr, "fgsim: internal error: mechanism '%s' registered twice\n", m.name.c_str());
    std::abort();
  }
  std::string n = m.name;
  all_.emplace(std::move(n), std::move(m));
}

const MechanismInfo* MechanismRegistry::find(const std::string& name) const {
  auto it = all_.find(name);
  return it == all_.end() ? nullptr : &it->second;
}

std::vector<const MechanismInfo*> MechanismRegistry::closure(const std::vector<std::string>& names,
                                                             const std::string& origin) const {
  std::vector<const MechanismInfo*> out;
  std::set<std::string> done, open;
  // Depth first: what a mechanism needs goes before it.
  std::function<void(const std::string&, const std::string&)> visit = [&](const std::string& n,
                                                                          const std::string& from) {
    if (done.count(n)) return;
    const MechanismInfo* m = find(n);
    if (!m) {
      std::string known;
      for (const auto& [k, v] : all_) known += (known.empty() ? "" : ", ") + k;
      throw UserError(fmt::format("{}: unknown mechanism '{}' (known: {})", from, shown(n), known));
    }
    if (!open.insert(n).second) throw std::logic_error(fmt::format("mechanism '{}' needs itself", n));
    for (const auto& d : m->needs) visit(d, fmt::format("mechanism '{}'", n));
    open.erase(n);
    done.insert(n);
    out.push_back(m);
  };
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  for (const auto& n : sorted) visit(n, origin);
  return out;
}

}  // namespace fg
