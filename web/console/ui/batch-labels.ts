import type { Strings } from '../../shared/i18n.js';

export const BATCH_STATUS: Strings<'pending' | 'assigned' | 'completed' | 'cancelled'> = {
  es: { pending: 'Pendiente', assigned: 'Asignado', completed: 'Completado', cancelled: 'Cancelado' },
  en: { pending: 'Pending', assigned: 'Assigned', completed: 'Completed', cancelled: 'Cancelled' },
};

export const VEHICLES: Strings<'bike' | 'motorcycle' | 'car' | 'van'> = {
  es: { bike: 'Bicicleta', motorcycle: 'Moto', car: 'Auto', van: 'Furgón' },
  en: { bike: 'Bike', motorcycle: 'Motorcycle', car: 'Car', van: 'Van' },
};
