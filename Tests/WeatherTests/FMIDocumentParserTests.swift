@testable import FMIFormat
import Foundation
import UpstreamTesting
@testable import Weather
import XCTest

final class FMIDocumentParserTests: XCTestCase {
    private struct ObservationFacts: Decodable {
        struct Station: Decodable {
            let name: String
            let lat: Double
            let lon: Double
            let observed_at: String
            let latest: [String: Double?]
        }
        let stations: [String: Station]
    }

    private struct ForecastFacts: Decodable {
        let lat: Double
        let lon: Double
        let times: [String]
        let series: [String: [Double?]]
    }

    func testObservationsMatchTheirFacts() throws {
        let series = try FMIDocumentParser.parse(Fixtures.bytes("fmi", "observations.xml"))
        let facts = try JSONDecoder().decode(ObservationFacts.self, from: Data(Fixtures.bytes("fmi", "observations.facts.json")))
        XCTAssertEqual(Set(series.compactMap(\.location.fmisid).map(String.init)), Set(facts.stations.keys))
        for entry in series {
            let fact = try XCTUnwrap(facts.stations[String(entry.location.fmisid ?? 0)])
            XCTAssertEqual(entry.location.name, fact.name)
            XCTAssertEqual(entry.location.latitude, fact.lat, accuracy: 1e-5)
            XCTAssertEqual(entry.location.longitude, fact.lon, accuracy: 1e-5)
            XCTAssertEqual(entry.points.last.map { Int($0.time.timeIntervalSince1970) }, FMITime.parse(fact.observed_at).map { Int($0.timeIntervalSince1970) })
            let expected = try XCTUnwrap(fact.latest[entry.parameter], entry.parameter)
            XCTAssertEqual(entry.points.last?.value, expected, "\(fact.name) \(entry.parameter)")
        }
        XCTAssertEqual(series.count, facts.stations.count * 7)
    }

    func testTheForecastMatchesItsFacts() throws {
        let series = try FMIDocumentParser.parse(Fixtures.bytes("fmi", "forecast-point.xml"))
        let facts = try JSONDecoder().decode(ForecastFacts.self, from: Data(Fixtures.bytes("fmi", "forecast-point.facts.json")))
        XCTAssertEqual(Set(series.map(\.parameter)), Set(facts.series.keys))
        for entry in series {
            XCTAssertEqual(entry.points.map(\.value), facts.series[entry.parameter], entry.parameter)
            XCTAssertEqual(entry.points.map { Timestampish($0.time) }, facts.times.map { Timestampish(FMITime.parse($0)!) })
            XCTAssertEqual(entry.location.latitude, facts.lat, accuracy: 1e-4)
        }
        let forecast = Forecast(cell: GridCell(latitude: 60.17, longitude: 24.94), fetchedAt: Date(), series: series)
        XCTAssertEqual(forecast.hours.count, facts.times.count)
        XCTAssertEqual(forecast.hours.first?.temperature, facts.series["Temperature"]?.first ?? nil)
    }

    func testRealMultiStationObservations() throws {
        let series = try FMIDocumentParser.parse(Fixtures.bytes("fmi/real", "obs-timevaluepair-multistation.xml"))
        XCTAssertEqual(series.map(\.location.fmisid), [100971, 101004, 101007])
        XCTAssertEqual(series.map(\.location.name), ["Helsinki Kaisaniemi", "Helsinki Kumpula", "Helsinki Rautatientori"])
        XCTAssertEqual(series.first?.location.latitude ?? 0, 60.17523, accuracy: 1e-5)
        XCTAssertEqual(series.first?.location.longitude ?? 0, 24.94459, accuracy: 1e-5)
        XCTAssertTrue(series.allSatisfy { $0.parameter == "t2m" && !$0.points.isEmpty })
    }

    func testRealNestedForecastWithoutNames() throws {
        let series = try FMIDocumentParser.parse(Fixtures.bytes("fmi/real", "extra-forecast-timevaluepair-hirlam-nested.xml"))
        XCTAssertFalse(series.isEmpty)
        XCTAssertTrue(series.contains { $0.parameter == "Temperature" })
        XCTAssertTrue(series.allSatisfy { $0.location.fmisid == nil })
    }

    func testNaNBecomesMissing() throws {
        let xml = """
            <wfs:FeatureCollection xmlns:wfs="http://www.opengis.net/wfs/2.0" xmlns:omso="x" xmlns:om="o" xmlns:gml="g" xmlns:wml2="w">
            <wfs:member><omso:PointTimeSeriesObservation><om:featureOfInterest>
              <gml:identifier codeSpace="http://xml.fmi.fi/namespace/stationcode/fmisid">1</gml:identifier>
              <gml:name codeSpace="http://xml.fmi.fi/namespace/locationcode/name">A</gml:name>
              <gml:pos>60.1 24.9 12.0</gml:pos></om:featureOfInterest>
              <om:result><wml2:MeasurementTimeseries gml:id="obs-obs-1-1-ws_10min">
                <wml2:point><wml2:MeasurementTVP><wml2:time>2026-11-23T05:50:00Z</wml2:time><wml2:value>3.5</wml2:value></wml2:MeasurementTVP></wml2:point>
                <wml2:point><wml2:MeasurementTVP><wml2:time>2026-11-23T06:00:00Z</wml2:time><wml2:value>NaN</wml2:value></wml2:MeasurementTVP></wml2:point>
              </wml2:MeasurementTimeseries></om:result></omso:PointTimeSeriesObservation></wfs:member></wfs:FeatureCollection>
            """
        let series = try FMIDocumentParser.parse(Array(xml.utf8))
        XCTAssertEqual(series.first?.parameter, "ws_10min")
        XCTAssertEqual(series.first?.points.map(\.value), [3.5, nil])
        XCTAssertEqual(series.first?.points.last { $0.value != nil }?.value, 3.5)
        XCTAssertEqual(series.first?.location.latitude, 60.1)
    }

    func testExceptionReportsAreErrorsWithTheirText() throws {
        for (file, text) in [
            ("extra-exception-no-data.xml", "No data available"), ("extra-exception-invalid-latlon.xml", "Invalid lon-lat"),
            ("extra-exception-no-locations.xml", "No locations found"),
        ] {
            XCTAssertThrowsError(try FMIDocumentParser.parse(Fixtures.bytes("fmi/real", file))) { error in
                guard case let .exceptionReport(_, texts) = error as? FMIError else { return XCTFail("\(error)") }
                XCTAssertTrue(texts.joined().contains(text), "\(file): \(texts)")
            }
        }
    }

    func testGarbageAndOtherDocumentsAreTypedErrors() {
        XCTAssertThrowsError(try FMIDocumentParser.parse(Array("<html><body>maintenance".utf8))) {
            XCTAssertNotNil($0 as? FMIError)
        }
        XCTAssertThrowsError(try FMIDocumentParser.parse(Array("<wfs:FeatureCollection xmlns:wfs=\"w\"><a></b>".utf8))) {
            guard case .unreadable = $0 as? FMIError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try FMIDocumentParser.parse([])) {
            XCTAssertEqual($0 as? FMIError, .unreadable(.empty))
        }
        XCTAssertThrowsError(try FMIDocumentParser.parse(Array("<rss><channel/></rss>".utf8))) {
            XCTAssertEqual($0 as? FMIError, .unexpectedRoot("rss"))
        }
        XCTAssertEqual(try FMIDocumentParser.parse(Array(#"<wfs:FeatureCollection xmlns:wfs="w" numberMatched="0"/>"#.utf8)), [])
    }

    func testOtherFormatsGiveNoSeriesRatherThanWrongOnes() throws {
        XCTAssertEqual(try FMIDocumentParser.parse(Fixtures.bytes("fmi/real", "obs-simple-bswfs.xml")), [])
        XCTAssertEqual(try FMIDocumentParser.parse(Fixtures.bytes("fmi/real", "forecast-point-harmonie.xml")), [])
    }
}

/// Whole seconds, for comparing times read two ways.
private struct Timestampish: Equatable {
    let seconds: Int
    init(_ date: Date) { seconds = Int(date.timeIntervalSince1970) }
}
