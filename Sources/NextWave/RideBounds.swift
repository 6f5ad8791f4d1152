/// How many rides the statistics, the badges and the leaderboard believe: at most what a rider could physically ride.
/// Rows past the bounds (an imported project's, or written before the bounds) are kept — a rider's history is theirs —
/// but not counted. The verified-session bounds also refuse writes past them (``CommunityStore``).
public struct RideBounds: Sendable, Equatable {
    /// `PIER_NEXTWAVE_RIDES_PER_DAY`: archived check-ins counted per rider and Swiss day. A ride is one departure's
    /// wake at one station; the busiest pier, Zürich Bürkliplatz, sees 30 departures on a high-summer Saturday (ZSG's
    /// 27 courses of 4 July 2026, each leaving it once, and 3 of other operators: Tests/Fixtures/zsg and transport),
    /// so a rider who surfed every one of them from one dock rode 30 — more is check-ins for waves nobody can ride.
    public var ridesPerDay = 30
    /// `PIER_NEXTWAVE_VERIFIED_PER_DAY`: verified sessions a rider may hold per day of their start (a GPX recording is a
    /// whole outing on the water: a morning, an evening, a few in between).
    public var verifiedPerDay = 10
    /// `PIER_NEXTWAVE_VERIFIED_MAX`: verified sessions a rider may hold in all (ten a day for every day of more than a
    /// year of seasons).
    public var verifiedInAll = 2_000

    public init() {}

    /// A Swiss day, as the statistics count days.
    static func day(_ column: String) -> String { "((\(column)) AT TIME ZONE 'Europe/Zurich')::date" }

    /// The archived rides counted: `nextwave_history`'s rows (with `local`, their Swiss time) that `condition` selects,
    /// each rider's first ``ridesPerDay`` of a day.
    func history(where condition: String) -> String {
        """
        (SELECT * FROM (SELECT *, (departure_at AT TIME ZONE 'Europe/Zurich') AS local,
                row_number() OVER (PARTITION BY user_id, \(Self.day("departure_at")) ORDER BY departure_at, wave_id) AS nth_of_day
            FROM nextwave_history WHERE \(condition)) counted WHERE nth_of_day <= \(ridesPerDay))
        """
    }

    /// The verified sessions counted: those `condition` selects, each rider's first ``verifiedPerDay`` of a day and
    /// first ``verifiedInAll`` in all.
    func verified(where condition: String) -> String {
        """
        (SELECT * FROM (SELECT *,
                row_number() OVER (PARTITION BY user_id, \(Self.day(Self.verifiedStart)) ORDER BY \(Self.verifiedStart), session_key) AS nth_of_day,
                row_number() OVER (PARTITION BY user_id ORDER BY \(Self.verifiedStart), session_key) AS nth
            FROM nextwave_verified_sessions WHERE \(condition)) counted WHERE nth_of_day <= \(verifiedPerDay) AND nth <= \(verifiedInAll))
        """
    }

    /// When a verified session counts as ridden: its start, or when it was recorded (the figures may be null).
    static let verifiedStart = "coalesce(start_at, recorded_at)"
}
