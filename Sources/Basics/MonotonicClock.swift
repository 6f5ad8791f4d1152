import Glibc

/// Nanoseconds from CLOCK_MONOTONIC: immune to wall-clock jumps, cheap (vDSO).
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary start (boot).
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
