import DatabaseTesting
import Fetching
import Postgres
import UpstreamTesting
import Weather
import XCTest

/// A throw-away database (migrated) and a local FMI for each test.
class WeatherDatabaseTestCase: XCTestCase {
    var database: TestDatabase!
    var pool: PostgresPool!
    var upstream: FixtureUpstream!

    override func setUp() async throws {
        database = try TestDatabase.create()
        pool = try await database.migratedPool()
        upstream = try FixtureUpstream()
    }

    override func tearDown() {
        upstream?.stop()
        pool?.close()
        database?.drop()
    }

    func fmi(timeout: Duration = .seconds(5)) -> FMIClient {
        FMIClient(baseURL: upstream.fmiURL, client: UpstreamClient(configuration: .init(timeout: timeout)))
    }
}
