-- The notified devices' rows go with their devices through what Push offers (Migrations/Push/0041), no longer through
-- a trigger of this module's on Push's table (0026's, dropped there): the function it ran goes too.
SELECT push_forget_devices_in('warning_notified', 'device_id');
DROP FUNCTION warning_notified_forget_devices();
