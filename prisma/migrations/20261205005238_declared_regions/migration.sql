-- CreateTable
CREATE TABLE "region" (
    "name" TEXT NOT NULL,
    "requires" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "region_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "certification" (
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "certification_pkey" PRIMARY KEY ("name")
);

-- Existing installs keep working: every region and certification already named by a provider,
-- an operation's requirements, a factor-list version's region rules or an override is declared.
INSERT INTO "certification" ("name")
SELECT DISTINCT c FROM (
    SELECT unnest("compliance_tags") AS c FROM "provider"
    UNION SELECT jsonb_array_elements_text(r.value) FROM "operation", jsonb_each("region_requirements") r
        WHERE jsonb_typeof("region_requirements") = 'object' AND jsonb_typeof(r.value) = 'array'
    UNION SELECT jsonb_array_elements_text(r.value -> 'required_compliance') FROM "factor_list_version", jsonb_each("document" -> 'regions') r
        WHERE jsonb_typeof("document" -> 'regions') = 'object' AND jsonb_typeof(r.value -> 'required_compliance') = 'array'
) names WHERE c <> '';

INSERT INTO "region" ("name", "updated_at")
SELECT DISTINCT r, CURRENT_TIMESTAMP FROM (
    SELECT unnest("supported_regions") AS r FROM "provider"
    UNION SELECT jsonb_object_keys("region_requirements") FROM "operation" WHERE jsonb_typeof("region_requirements") = 'object'
    UNION SELECT jsonb_object_keys("document" -> 'regions') FROM "factor_list_version" WHERE jsonb_typeof("document" -> 'regions') = 'object'
    UNION SELECT "region" FROM "override" WHERE "region" IS NOT NULL
) names WHERE r <> '' AND r <> '*';
