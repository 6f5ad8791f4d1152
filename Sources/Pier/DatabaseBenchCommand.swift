import ArgumentParser
import Feature
import Glibc
import Postgres

/// `pier bench-db` (hidden): times point lookups and single-row upserts through the libpq wrapper, one
/// connection, for `scripts/bench` to set beside pgbench's figures for the same statements on the same server.
struct DatabaseBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-db", abstract: "Benchmark the PostgreSQL wrapper (used by scripts/bench).", shouldDisplay: false)

    @Option(help: "Seconds of point lookups.")
    var seconds: Double = 5

    @Option(help: "Rows in the lookup table.")
    var rows: Int = 10_000

    @Option(help: "Upserts to time.")
    var upserts: Int = 1_000

    private static let upsert = "INSERT INTO bench_kv (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v"

    func run() throws {
        let configuration = try Configuration.load()
        guard let url = configuration.databaseURL else { throw ValidationError("DATABASE_URL is not set") }
        let connection = try PostgresConnection(url: url)
        try connection.execute("DROP TABLE IF EXISTS bench_kv")
        try connection.execute("CREATE TABLE bench_kv (k integer PRIMARY KEY, v text NOT NULL)")
        try connection.execute("INSERT INTO bench_kv SELECT g, md5(g::text) FROM generate_series(1, $1::int) AS g", [rows])
        try connection.execute("ANALYZE bench_kv")

        var lookups = 0
        let lookupStart = Self.now()
        while Self.now() - lookupStart < seconds {
            for _ in 0..<100 {
                let found = try connection.query("SELECT v FROM bench_kv WHERE k = $1", [Int.random(in: 1...rows)])
                guard found.count == 1 else { throw ValidationError("lookup found \(found.count) rows") }
                _ = try found[0].decode(String.self, "v")
            }
            lookups += 100
        }
        let lookupSeconds = Self.now() - lookupStart

        let upsertStart = Self.now()
        for _ in 0..<upserts {
            try connection.execute(Self.upsert, [Int.random(in: 1...(rows * 2)), "x"])
        }
        let upsertSeconds = Self.now() - upsertStart

        let batchStart = Self.now()
        try connection.transaction { connection in
            for _ in 0..<upserts {
                try connection.execute(Self.upsert, [Int.random(in: 1...(rows * 2)), "y"])
            }
        }
        let batchSeconds = Self.now() - batchStart
        print("""
            {"lookups_per_s": \(Int(Double(lookups) / lookupSeconds)), "upserts_per_s": \(Int(Double(upserts) / upsertSeconds)), \
            "upsert_batch_ms": \((batchSeconds * 1000 * 10).rounded() / 10)}
            """)
    }

    private static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
