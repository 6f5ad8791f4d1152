import ArgumentParser
import FeatureCommands
import Foundation
import Postgres

/// `pier nextwave names TEXT`: the riders whose chosen name holds the text, to find the one to act on.
struct NamesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "names",
        abstract: "List the riders whose leaderboard name holds TEXT (any case): their user id and name.",
        discussion: "At most \(CommunityModeration.listed), newest names first. Environment: DATABASE_URL (required; or DATABASE_URL_FILE).")

    @Argument(help: "Text the name holds.")
    var text: String

    func run() throws {
        let text = self.text
        try Commands.current.withDatabase(announcing: nil) { pool in
            let found = try await CommunityModeration.names(holding: text, in: pool)
            for rider in found { print("\(rider.user)\t\(rider.name)") }
            if found.isEmpty { print("no rider's name holds that text") }
        }
    }
}

/// `pier nextwave clear-name USER_ID`: a rider's name taken off the leaderboard and their check-ins.
struct ClearNameCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear-name",
        abstract: "Take a rider's chosen name off the leaderboard and their live check-ins (running replicas are told).",
        discussion: "Exit status 1 when there is no such rider. Environment: DATABASE_URL (required; or DATABASE_URL_FILE).")

    @Argument(help: "The rider's user id (pier nextwave names finds it).")
    var user: String

    func run() throws {
        try ModerationFailure.act(on: user) { try await CommunityModeration.clearName(of: $0, in: $1) }
        print("the rider's name is cleared")
    }
}

/// `pier nextwave delete-user USER_ID`: what the app's own account deletion does, for an operator.
struct DeleteUserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-user",
        abstract: "Delete a rider and everything about them, as the app's own deletion does (running replicas are told).",
        discussion: """
            Sessions, check-ins, rides, name, badges, verified sessions, devices and their pending pushes. Exit status 1 \
            when there is no such rider. Environment: DATABASE_URL (required; or DATABASE_URL_FILE).
            """)

    @Argument(help: "The rider's user id (pier nextwave names finds it).")
    var user: String

    func run() throws {
        try ModerationFailure.act(on: user) { try await AuthStore.deleteUser($0, in: $1) }
        print("the rider and everything about them are deleted")
    }
}

/// Why a moderation command did nothing.
enum ModerationFailure: Error, CustomStringConvertible {
    case noSuchRider

    var description: String {
        switch self {
        case .noSuchRider: "no rider has that user id (pier nextwave names lists them)"
        }
    }

    /// Runs `action` on `user` in the migrated database; `false` (no such rider) is this failure: exit status 1.
    static func act(on user: String, _ action: @escaping @Sendable (String, PostgresPool) async throws -> Bool) throws {
        try Commands.current.withDatabase(announcing: nil) { pool in
            guard try await action(user, pool) else { throw Self.noSuchRider }
        }
    }
}
