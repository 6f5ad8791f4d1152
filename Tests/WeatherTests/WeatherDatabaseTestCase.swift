import DatabaseTesting
import Postgres
import UpstreamHTTP
import UpstreamTesting
import Weather
import XCTest

/// A throw-away database (migrated) and a local FMI for each test.
class WeatherDatabaseTestCase: ServiceTestCase {
    func fmi(timeout: Duration = .seconds(5)) -> FMIClient {
        FMIClient(baseURL: upstream.fmiURL, client: UpstreamClient(configuration: .init(timeout: timeout)))
    }
}
