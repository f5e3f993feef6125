#if canImport(Glibc)
import Glibc
#endif

/// The rule for a directory the session keeps files in that are one user's (staged downloads,
/// a `ResponseCache`'s responses): a real directory, not a link, owned by this user, that
/// nobody else can enter. Another user who could would read every file and swap one while it
/// is written. `problem` is the rule alone (pure); `prepare` makes the directory and reads it.
enum PrivateDirectory {
    /// Makes the directory at `path` (0700) if it is missing; why it cannot be used as a
    /// private directory, or `nil` when it can.
    static func prepare(_ path: String) -> String? {
        if mkdir(path, 0o700) != 0, errno != EEXIST { return "it cannot be made: \(String(cString: strerror(errno)))" }
        var info = stat()
        guard lstat(path, &info) == 0 else { return String(cString: strerror(errno)) }
        return problem(mode: info.st_mode, owner: info.st_uid)
    }

    /// Why a directory with `mode` and `owner` is not private to `user`, or `nil`.
    static func problem(mode: mode_t, owner: uid_t, user: uid_t = geteuid()) -> String? {
        if mode & S_IFMT == S_IFLNK { return "it is a symbolic link" }
        if mode & S_IFMT != S_IFDIR { return "it is not a directory" }
        if owner != user { return "it belongs to user \(owner), not to this user (\(user))" }
        if mode & 0o077 != 0 { return "other users can reach it (mode \(String(mode & 0o777, radix: 8)))" }
        return nil
    }
}
