import Postgres

/// A rider's 18 statistics (``CommunityFunctions/statsSQL``), as the badges read them.
struct WaveStats: Sendable, Equatable {
    var totalWaves = 0
    var distinctStations = 0
    var distinctLakes = 0
    var maxWavesOneStation = 0
    var firstOfDayCount = 0
    var lastOfDayCount = 0
    var earlyBirdCount = 0
    var lunchCount = 0
    var nightOwlCount = 0
    var weekendCount = 0
    var maxWavesOneDay = 0
    var hasAnniversary = false
    var soloCount = 0
    var maxPeerCount = 0
    var trendsetterCount = 0
    var seasonsRidden: Set<String> = []
    var currentStreakWeeks = 0
    var longestStreakWeeks = 0

    init() {}

    init(_ row: PostgresRow) throws {
        totalWaves = try row.decode(Int.self, "total_waves")
        distinctStations = try row.decode(Int.self, "distinct_stations")
        distinctLakes = try row.decode(Int.self, "distinct_lakes")
        maxWavesOneStation = try row.decode(Int.self, "max_waves_one_station")
        firstOfDayCount = try row.decode(Int.self, "first_of_day_count")
        lastOfDayCount = try row.decode(Int.self, "last_of_day_count")
        earlyBirdCount = try row.decode(Int.self, "early_bird_count")
        lunchCount = try row.decode(Int.self, "lunch_count")
        nightOwlCount = try row.decode(Int.self, "night_owl_count")
        weekendCount = try row.decode(Int.self, "weekend_count")
        maxWavesOneDay = try row.decode(Int.self, "max_waves_one_day")
        hasAnniversary = try row.decode(Bool.self, "has_anniversary")
        soloCount = try row.decode(Int.self, "solo_count")
        maxPeerCount = try row.decode(Int.self, "max_peer_count")
        trendsetterCount = try row.decode(Int.self, "trendsetter_count")
        seasonsRidden = Set(try row.words("seasons_ridden"))
        currentStreakWeeks = try row.decode(Int.self, "current_streak_weeks")
        longestStreakWeeks = try row.decode(Int.self, "longest_streak_weeks")
    }
}

/// The app's 34 check-in badges (ids, titles and thresholds as its catalogue has them): a badge is earned when its
/// figure reaches its target. The server's detection counts verified sessions as the app's does (they add to the
/// rides, stations and lakes), so a push never announces a badge the app does not show, nor misses one it does.
struct Badge: Sendable {
    var id: String
    var title: String
    var target: Int
    var figure: @Sendable (WaveStats) -> Int

    /// `lakes_all`'s target: the app's `totalLakeCount`.
    static let allLakes = 15

    static let catalogue: [Badge] = {
        let milestones = [1, 10, 25, 50, 100].map { n in
            Badge(id: n == 1 ? "first_wave" : "milestone_\(n)", title: n == 1 ? "First Wave" : "\(n) Waves", target: n) { $0.totalWaves }
        }
        let seasons = ["spring", "summer", "autumn", "winter"].map { season in
            Badge(id: "season_\(season)", title: season.prefix(1).uppercased() + season.dropFirst(), target: 1) { $0.seasonsRidden.contains(season) ? 1 : 0 }
        }
        return milestones + [
            Badge(id: "stations_3", title: "Explorer", target: 3) { $0.distinctStations },
            Badge(id: "stations_5", title: "Wanderer", target: 5) { $0.distinctStations },
            Badge(id: "stations_10", title: "Nomad", target: 10) { $0.distinctStations },
            Badge(id: "lakes_2", title: "Two Lakes", target: 2) { $0.distinctLakes },
            Badge(id: "lakes_3", title: "Swiss Explorer", target: 3) { $0.distinctLakes },
            Badge(id: "lakes_all", title: "Swiss Champion", target: allLakes) { $0.distinctLakes },
            Badge(id: "regular_10", title: "Regular", target: 10) { $0.maxWavesOneStation },
            Badge(id: "regular_25", title: "Local Legend", target: 25) { $0.maxWavesOneStation },
            Badge(id: "first_ship_1", title: "First Ship", target: 1) { $0.firstOfDayCount },
            Badge(id: "first_ship_10", title: "Dawn Patrol", target: 10) { $0.firstOfDayCount },
            Badge(id: "last_ship_1", title: "Last Ship", target: 1) { $0.lastOfDayCount },
            Badge(id: "last_ship_10", title: "Closing Time", target: 10) { $0.lastOfDayCount },
            Badge(id: "early_bird", title: "Early Bird", target: 1) { $0.earlyBirdCount },
            Badge(id: "lunch_ship", title: "Lunch Ship", target: 1) { $0.lunchCount },
            Badge(id: "night_owl", title: "Night Owl", target: 1) { $0.nightOwlCount },
            Badge(id: "weekend_warrior", title: "Weekend Warrior", target: 10) { $0.weekendCount },
        ] + seasons + [
            Badge(id: "four_seasons", title: "Four Seasons", target: 4) { $0.seasonsRidden.count },
            Badge(id: "double", title: "Double", target: 2) { $0.maxWavesOneDay },
            Badge(id: "triple", title: "Triple", target: 3) { $0.maxWavesOneDay },
            Badge(id: "one_year", title: "One Year", target: 1) { $0.hasAnniversary ? 1 : 0 },
            Badge(id: "lone_wolf", title: "Lone Wolf", target: 1) { $0.soloCount },
            Badge(id: "crowd_surfer", title: "Crowd Surfer", target: 5) { $0.maxPeerCount },
            Badge(id: "trendsetter", title: "Trendsetter", target: 1) { $0.trendsetterCount },
            Badge(id: "streak_3", title: "On a Roll", target: 3) { $0.longestStreakWeeks },
            Badge(id: "streak_6", title: "Unstoppable", target: 6) { $0.longestStreakWeeks },
        ]
    }()

    /// The badges `stats` earns, in the catalogue's order.
    static func earned(_ stats: WaveStats) -> [Badge] {
        catalogue.filter { $0.figure(stats) >= $0.target }
    }
}
