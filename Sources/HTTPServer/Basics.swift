// Addresses and the monotonic clock are values the server hands out (a request's peer, its timing) and features
// use (budgets keyed by client, their clocks); they live in the domain-free Basics module so that services can use
// them without importing the server.
@_exported import Basics
