// User-input errors. One exception type carries where the problem is (file,
// line, column, key) and what was expected; main() catches it once and exits 2.
#pragma once

#include <stdexcept>
#include <string>

namespace rdmasim {

class InputError : public std::runtime_error {
 public:
  // line/column are 1-based; 0 means unknown.
  InputError(std::string file, int line, int column, std::string key, std::string message)
      : std::runtime_error(format(file, line, column, key, message)),
        file_(std::move(file)),
        line_(line),
        column_(column),
        key_(std::move(key)),
        message_(std::move(message)) {}

  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] int line() const { return line_; }
  [[nodiscard]] int column() const { return column_; }
  [[nodiscard]] const std::string& key() const { return key_; }
  [[nodiscard]] const std::string& message() const { return message_; }

 private:
  static std::string format(const std::string& file, int line, int column, const std::string& key,
                            const std::string& message) {
    std::string s;
    s.reserve(file.size() + key.size() + message.size() + 32);
    s.append(file.empty() ? "<input>" : file);
    if (line > 0) {
      s.append(":").append(std::to_string(line));
      if (column > 0) s.append(":").append(std::to_string(column));
    }
    s.append(": ");
    if (!key.empty()) s.append("'").append(key).append("': ");
    s.append(message);
    return s;
  }
  std::string file_;
  int line_;
  int column_;
  std::string key_;
  std::string message_;
};

}  // namespace rdmasim
