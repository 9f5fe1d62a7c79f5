#include "config/params.h"

#include <cstdio>
#include <filesystem>

#include "config/shipped_path.h"

namespace rdmasim {

std::string resolve_data_path(const CfgNode& n, std::string_view key, const std::string& value) {
  namespace fs = std::filesystem;
  fs::path p(value);
  std::error_code ec;  // e.g. a name too long for the OS: not found, not an exception
  if (p.is_absolute()) {
    if (fs::exists(p, ec)) return value;
    throw n.error(key, "file not found: '" + value + "'");
  }
  const fs::path beside = fs::path(n.file()).parent_path() / p;
  if (fs::exists(beside, ec)) return beside.string();
  if (fs::exists(p, ec)) return value;
  // Files that ship with rdmasim (data/...) are found from any working directory.
  if (std::string shipped = find_shipped(value); fs::exists(shipped, ec)) return shipped;
  throw n.error(key, "file not found: '" + value + "' (looked beside the scenario as '" + beside.string() +
                         "', in the working directory and among the files rdmasim ships)");
}

std::vector<std::string> key_names(const std::vector<KeyInfo>& keys) {
  std::vector<std::string> names;
  for (const KeyInfo& k : keys)
    if (k.refused.empty() && k.form != "map") names.push_back(k.key);
  return names;
}

std::string ParamSchema::int_range(int64_t min, int64_t max) {
  auto num = [](int64_t x) {
    if (x == std::numeric_limits<int64_t>::max()) return std::string("max");
    return std::to_string(x);
  };
  return num(min) + ".." + num(max);
}

std::string ParamSchema::range(double min, double max) {
  // Limits written as code writes them (1 << 20) read better as powers.
  auto num = [](double x) {
    if (x >= 1e15 || x <= -1e15) return std::string(x > 0 ? "max" : "min");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", x);
    return std::string(buf);
  };
  return num(min) + ".." + num(max);
}

uint8_t read_tc_set(const CfgNode& n, const char* key) {
  uint8_t mask = 0;
  for (const auto& e : n.list(key)) {
    int tc = -1;
    try {
      tc = std::stoi(e.scalar());
    } catch (...) {
    }
    if (tc < 0 || tc > 7 || std::to_string(tc) != e.scalar())
      throw e.error("", "expected a traffic class 0..7");
    mask |= static_cast<uint8_t>(1u << tc);
  }
  return mask;
}

nlohmann::ordered_json tc_set_json(uint8_t mask) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (int tc = 0; tc < 8; ++tc)
    if ((mask >> tc) & 1u) a.push_back(tc);
  return a;
}

namespace {

// A value as it would be written in a scenario: strings bare, lists in
// brackets, numbers as JSON prints them.
std::string as_written(const nlohmann::ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i == 0 ? "" : ", ") + as_written(v[i]);
    return s + "]";
  }
  return v.dump();
}

}  // namespace

std::vector<std::pair<std::string, std::string>> flatten_params(const nlohmann::ordered_json& echo,
                                                                const std::string& prefix) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [k, v] : echo.items()) {
    std::string key = prefix;
    if (!key.empty()) key += '.';
    key += k;
    if (v.is_object()) {
      auto sub = flatten_params(v, key);
      out.insert(out.end(), sub.begin(), sub.end());
    } else {
      out.emplace_back(key, as_written(v));
    }
  }
  return out;
}

}  // namespace rdmasim
