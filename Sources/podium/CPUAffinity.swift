import Foundation

/// The CPUs this process may run on, as `taskset` or systemd's `CPUAffinity=` set them. NIO
/// counts the machine's cores (or its cgroup quota) and does not see this.
enum CPUAffinity {
    /// From the `Cpus_allowed` mask in `/proc/self/status` (comma-separated hex words); nil
    /// where there is no such file.
    static var count: Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") })
        else { return nil }
        let mask = line.dropFirst("Cpus_allowed:".count).trimmingCharacters(in: .whitespaces)
        var cpus = 0
        for digit in mask where digit != "," {
            guard let value = digit.hexDigitValue else { return nil }
            cpus += value.nonzeroBitCount
        }
        return cpus > 0 ? cpus : nil
    }
}
