import Basics
import Feature
import Foundation
import METNorwayFormat
import Postgres
import SharedAnswers

/// MET Norway's forecast per point, as MET's own steps, shared by the replicas: in the shared answer store (kind
/// `metno`, key the cell's indices) like every other on-demand answer — the body `{"last_modified": …, "steps": […]}`,
/// fresh until MET's `Expires`, kept a day past it, at most ``maximumRows``.
public struct METNorwayStore: Sendable {
    static let kind = "metno"
    let answers: SharedAnswerKind

    /// - Parameter maximumRows: points kept at most (random points cannot grow the store without bound).
    public init(pool: PostgresPool, maximumRows: Int = 10_000) {
        answers = SharedAnswerKind(kind: Self.kind, store: SharedAnswerStore(pool: pool), retention: .seconds(86_400), maxRows: maximumRows)
    }

    /// A point's key: its cell's indices.
    static func key(_ point: METNorwayPoint) -> String {
        "\(point.latitudeIndex),\(point.longitudeIndex)"
    }

    func held(_ point: METNorwayPoint) async throws -> METNorwayHeld? {
        guard let stored = try await answers.answer(Self.key(point)), stored.outcome == .found,
            let body = try JSONSerialization.jsonObject(with: Data(stored.body)) as? [String: Any]
        else { return nil }
        let steps = Self.steps(from: body["steps"])
        guard !steps.isEmpty else { return nil }
        return METNorwayHeld(
            forecast: METNorwayForecast(updatedAt: nil, steps: steps), fetchedAt: stored.fetchedAt, expires: stored.expiresAt,
            lastModified: body["last_modified"] as? String)
    }

    func store(_ held: METNorwayHeld, for point: METNorwayPoint, now: Date = Date()) async throws {
        // The steps as written once (their layout below), beside the Last-Modified a conditional request sends back.
        let body = JSONWriter.make { json in
            json.object { json in
                json.member("last_modified", held.lastModified)
                json.key("steps")
                Self.write(held.forecast.steps, to: &json)
            }
        }
        try await answers.store(StoredAnswer(.found, body: body, fetchedAt: held.fetchedAt, expiresAt: held.expires), key: Self.key(point))
    }

    /// `[[epoch, t, ws, wd, h, p, precipitation, period hours, "symbol"], …]`.
    /// The values as Swift describes them (`8.0`), as they were always stored.
    static func write(_ steps: [METNorwayForecast.Step], to json: inout JSONWriter) {
        json.array { json in
            for step in steps {
                json.array { json in
                    json.number(Int(step.time.timeIntervalSince1970))
                    for value in [step.temperature, step.windSpeed, step.windDirection, step.humidity, step.pressure, step.precipitation] {
                        if let value { json.number(described: value) } else { json.null() }
                    }
                    if let hours = step.periodHours { json.number(hours) } else { json.null() }
                    json.string(step.symbol)
                }
            }
        }
    }

    /// Steps of another layout read as nothing held (MET is asked again).
    static func steps(from value: Any?) -> [METNorwayForecast.Step] {
        guard let rows = value as? [[Any]] else { return [] }
        return rows.compactMap { row in
            guard row.count == 9, let epoch = (row[0] as? NSNumber)?.doubleValue else { return nil }
            let values = row[1...6].map { ($0 as? NSNumber)?.doubleValue }
            return METNorwayForecast.Step(
                time: Date(timeIntervalSince1970: epoch), temperature: values[0], windSpeed: values[1], windDirection: values[2],
                humidity: values[3], pressure: values[4], precipitation: values[5], periodHours: (row[7] as? NSNumber)?.intValue,
                symbol: row[8] as? String)
        }
    }
}
