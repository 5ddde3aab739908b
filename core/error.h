#pragma once
// Error values for untrusted input: parsers return Result<T>, whose error message
// names what was wrong and where (line, column, move number), instead of throwing.
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace othello::core {

struct Error {
  std::string message;
};

// The project's exception for files and configuration (checkpoints, configs, game
// files): the message names the file, the key or field, and the offending value.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <typename T>
class Result {
 public:
  Result(T value) : data_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : data_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return data_.index() == 0; }
  explicit operator bool() const { return ok(); }

  const T& value() const& { return Check(), std::get<0>(data_); }
  T& value() & { return Check(), std::get<0>(data_); }
  T&& value() && { return Check(), std::get<0>(std::move(data_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  const std::string& error() const { return std::get<1>(data_).message; }

 private:
  void Check() const {
    if (!ok()) throw std::runtime_error(error());
  }
  std::variant<T, Error> data_;
};

}  // namespace othello::core
