#pragma once
// The project's file writes, in one place, so that every file it keeps survives a
// crash or a full disk whole:
//  - WriteFileAtomically: the whole file through PATH.tmp (created, written, fsync'd,
//    closed), renamed over PATH, then the folder fsync'd. A reader sees the old file or
//    the new one, never a part; a failed write removes PATH.tmp and leaves PATH as it was.
//  - AppendToFile: one record appended with O_APPEND (fsync'd when `durable`); a crash
//    can at worst cut the last record short, which RepairTornTail removes on reopening.
// Failures throw core::InputError naming the file and the system's reason.
// Thread safety: functions of the file system; callers serialise writes to one file.
#include <cstdint>
#include <string>
#include <string_view>

namespace othello::core {

// The whole file; `what` names it in errors ("checkpoint", "model file", ...).
std::string ReadFile(const std::string& path, std::string_view what);

void WriteFileAtomically(const std::string& path, std::string_view bytes, std::string_view what);

// The suffix of WriteFileAtomically's temporary file (PATH.tmp).
inline constexpr std::string_view kTemporarySuffix = ".tmp";
// Whether a file name is such a temporary file: a write in progress, or one a crash left.
bool IsTemporaryFile(std::string_view name);

void AppendToFile(const std::string& path, std::string_view bytes, std::string_view what,
                  bool durable = false);

// For files of newline-terminated records: cuts an unfinished last line (left by a
// crash during an append) and returns how many bytes were cut; 0 when the file is
// whole or missing.
std::uint64_t RepairTornTail(const std::string& path, std::string_view what);

// fsync of a folder, so that a rename or a new file in it survives a power cut.
void SyncFolder(const std::string& path, std::string_view what);

}  // namespace othello::core
