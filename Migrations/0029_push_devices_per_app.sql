-- A device token belongs to one app (Sources/Push/PushApp.swift): the warnings app and Next Wave are different
-- developers' apps, each with its own APNs topic (and key), and APNs never gives two apps one token — the same token
-- registered for another app means somebody copied it, and must not take this app's device away. So a token is unique
-- per app, not in all, and every device says whose it is. The devices Next Wave's community registered are Next Wave's;
-- all others were registered through /v1/devices (the warnings app).
ALTER TABLE push_devices ADD COLUMN app text CHECK (length(app) BETWEEN 1 AND 40);
UPDATE push_devices SET app = CASE WHEN id IN (SELECT device_id FROM nextwave_devices) THEN 'nextwave' ELSE 'warnings' END;
ALTER TABLE push_devices ALTER COLUMN app SET NOT NULL;
ALTER TABLE push_devices DROP CONSTRAINT push_devices_token_key;
ALTER TABLE push_devices ADD CONSTRAINT push_devices_app_token_key UNIQUE (app, token);
