#include "cli/bench_report.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace othello::cli {

void PrintBenchReport(const std::string& title, const nlohmann::ordered_json& report, bool json) {
  if (json) {
    std::printf("%s\n", report.dump().c_str());
    return;
  }
  std::printf("%s\n", title.c_str());
  for (const auto& [key, value] : report.items()) {
    if (value.is_number_float()) {
      const double v = value.get<double>();
      const char* format = v >= 100 ? "%-26s %.0f\n" : v >= 1 ? "%-26s %.2f\n"
                           : v >= 0.001 || v == 0 ? "%-26s %.4f\n" : "%-26s %.3g\n";
      std::printf(format, key.c_str(), v);
    } else {
      std::printf("%-26s %s\n", key.c_str(),
                  value.is_string() ? value.get<std::string>().c_str() : value.dump().c_str());
    }
  }
}

CLI::Validator SecondsCheck(bool zero) {
  return CLI::Validator(
      [zero](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        const bool ok = end != text.c_str() && *end == '\0' && std::isfinite(v) &&
                        (zero ? v >= 0 : v > 0);
        return ok ? "" : "expected a number of seconds " + std::string(zero ? "of at least 0" : "above 0") +
                             ", not '" + text + "'";
      },
      zero ? "SECONDS>=0" : "SECONDS>0");
}

}  // namespace othello::cli
